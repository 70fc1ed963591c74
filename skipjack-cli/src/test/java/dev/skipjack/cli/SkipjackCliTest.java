package dev.skipjack.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the commands as the jar does, in process. The demo test runs on an embedded PostgreSQL, or
 * on the database SKIPJACK_DATABASE_URL names when it is set.
 */
class SkipjackCliTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int execute(String... args) {
        CommandLine commandLine = new CommandLine(new SkipjackCli());
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void demoRunsEveryJobToATerminalStateAndPassesItsChecks() {
        int exitCode = execute("demo", "--jobs", "2000");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isZero();
        assertThat(out.toString())
                .contains("2,000 of 2,000 jobs terminal")
                .contains("[ok]     transfers kept the books balanced")
                .doesNotContain("[FAILED]");
    }

    @Test
    void demoRunsOnSqliteWithNothingInstalled() {
        int exitCode = execute("demo", "--backend", "sqlite", "--jobs", "1000");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isZero();
        assertThat(out.toString())
                .contains("using a new SQLite database")
                .contains("1,000 of 1,000 jobs terminal")
                .contains("[ok]     transfers kept the books balanced")
                .doesNotContain("[FAILED]");
    }

    @Test
    void sqliteUrlWorksForMigrateJobsAndQueues(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        String url = "jdbc:sqlite:" + dir.resolve("ops.db");
        assertThat(execute("migrate", "--url", url)).as("migrate; output:%n%s%n%s", out, err).isZero();
        assertThat(execute("demo", "--url", url, "--jobs", "200")).as("demo; output:%n%s%n%s", out, err).isZero();
        assertThat(execute("queues", "list", "--url", url)).as("queues; output:%n%s%n%s", out, err).isZero();
        assertThat(out.toString()).contains("default");
        assertThat(execute("jobs", "list", "--url", url, "--state", "completed"))
                .as("jobs; output:%n%s%n%s", out, err).isZero();
    }

    @Test
    void migratePrintsSchemaSqlWithoutADatabase() {
        int exitCode = execute("migrate", "--print-sql", "--schema", "billing");

        assertThat(exitCode).isZero();
        assertThat(out.toString()).contains("CREATE TABLE \"billing\".\"skipjack_jobs\"");
    }

    @Test
    void exportDirRefusesAnUnknownFormatAndPrintSqlBesideIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        assertThat(execute("migrate", "--export-dir", dir.toString(), "--format", "sqitch")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown --format 'sqitch': use flyway or liquibase");
        assertThat(execute("migrate", "--export-dir", dir.toString(), "--print-sql")).isEqualTo(2);
        assertThat(err.toString()).contains("give --print-sql or --export-dir, not both");
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void badUrlIsAUsageErrorThatSaysWhatIsWrong() {
        int exitCode = execute("demo", "--url", "sqlserver://app@db/orders");

        assertThat(exitCode).isEqualTo(2);
        assertThat(err.toString()).contains("unsupported database URL sqlserver://app@db/orders");
    }
}
