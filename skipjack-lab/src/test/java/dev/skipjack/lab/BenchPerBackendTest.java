package dev.skipjack.lab;

import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench} on the other backends: the ceiling in the backend's own SQL (it fails the run if
 * it leaves a job unfinished or processes a wrong count), the drain's ratio to it, polling
 * latency only, and the PostgreSQL-only workloads skipped with their reason. MariaDB is the
 * embedded one of the core tests, or SKIPJACK_TEST_MARIADB_URL; SQLite a new file.
 */
class BenchPerBackendTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int execute(String... args) {
        CommandLine commandLine = new CommandLine(new SkipjackLab());
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private void assertMeasuredAgainstItsOwnCeiling(String product) {
        String[] lines = out.toString().strip().split("\\R");
        assertThat(out.toString()).contains("Database: " + product)
                .contains("Skipping depth on " + product + ": it fills the table with generate_series")
                .contains("latency: no LISTEN/NOTIFY on " + product)
                .doesNotContain("RESULT workload=depth")
                .doesNotContain("wakeup=notify");
        assertThat(lines[lines.length - 3]).matches(
                "RESULT workload=ceiling jobs=1000 threads=8 batch=100 runs=1 enqueue_per_s=\\d+ process_per_s=\\d+");
        assertThat(lines[lines.length - 2]).matches("RESULT workload=drain jobs=1000 concurrency=8 runs=1"
                + " enqueue_per_s=\\d+ enqueue_ratio_to_ceiling=\\d+\\.\\d\\d process_per_s=\\d+ ratio_to_ceiling=\\d+\\.\\d\\d");
        assertThat(lines[lines.length - 1]).matches(
                "RESULT workload=latency wakeup=poll samples=3 p50_ms=[0-9.]+ p99_ms=[0-9.]+ max_ms=[0-9.]+");
    }

    @Test
    void benchOnSqliteMeasuresItsOwnCeiling(@TempDir Path dir) {
        int exitCode = execute("bench", "--url", "jdbc:sqlite:" + dir.resolve("bench.db"), "--workloads",
                "ceiling,drain,latency,depth", "--jobs", "1000", "--runs", "1", "--latency-samples", "3");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isZero();
        assertMeasuredAgainstItsOwnCeiling("SQLite");
    }

    @Test
    void benchOnMariaDbMeasuresItsOwnCeiling() {
        int exitCode = execute("bench", "--url", TestBackend.MARIADB.jdbcUrl(), "--schema", "lab_bench_" + ProcessHandle.current().pid(),
                "--workloads", "ceiling,drain,latency,depth", "--jobs", "1000", "--runs", "1", "--latency-samples", "3");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isZero();
        assertMeasuredAgainstItsOwnCeiling("MariaDB");
    }
}
