package dev.skipjack.lab;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code skipjack-lab failover} refuses what it cannot run before it starts a cluster. The runs
 * themselves need the pg_auto_failover packages and minutes, so they are not part of the build
 * (docs/scaling.md, "Failover of the primary"); their pure logic is tested in
 * {@code dev.skipjack.lab.failover}.
 */
class FailoverCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int execute(String... args) {
        CommandLine commandLine = SkipjackLab.newCommandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void oneWorkerIsRefusedAsTheLeaderIsKilledAfterEachFailover() {
        int exitCode = execute("failover", "--workers", "1");

        assertThat(exitCode).isNotZero();
        assertThat(err.toString()).contains("--workers at least 2");
        assertThat(out.toString()).doesNotContain("Starting a pg_auto_failover cluster");
    }

    @Test
    void anUnknownModeIsRefused() {
        int exitCode = execute("failover", "--mode", "naive");

        assertThat(exitCode).isNotZero();
        assertThat(err.toString()).contains("--mode must be lease or transactional, not 'naive'");
    }

    @Test
    void urlParametersAreOnlyNameValuePairs() {
        int exitCode = execute("failover", "--url-parameters", "hostRecheckSeconds=1;options=-c");

        assertThat(exitCode).isNotZero();
        assertThat(err.toString()).contains("--url-parameters must be name=value pairs joined by &");
    }

    @Test
    void missingServerBinariesAreNamedWithThePackagesToInstall(@TempDir Path empty) {
        int exitCode = execute("failover", "--pg-bin", empty.toString());

        assertThat(exitCode).isNotZero();
        assertThat(err.toString()).containsAnyOf("no PostgreSQL server binaries in " + empty,
                "pg_autoctl is not installed");
        assertThat(err.toString()).contains("postgresql-15-auto-failover");
    }
}
