package dev.skipjack.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.embedded.EmbeddedDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator commands (enqueue, jobs, queues, stats, worker) as a script runs them, against a
 * real PostgreSQL: the embedded one, or SKIPJACK_TEST_PG_URL when set. Each test has its own
 * schema. Expected values are read back with plain SQL.
 */
class OperatorCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static EmbeddedDatabase embedded;
    private static String url;

    private String schema;
    private StringWriter out;
    private StringWriter err;

    @BeforeAll
    static void startDatabase() {
        String external = System.getenv("SKIPJACK_TEST_PG_URL");
        if (external != null && !external.isBlank()) {
            url = external;
        } else {
            embedded = EmbeddedDatabase.start();
            url = embedded.jdbcUrl();
        }
    }

    @AfterAll
    static void stopDatabase() {
        if (embedded != null) {
            embedded.close();
        }
    }

    @BeforeEach
    void freshSchema() {
        schema = "cli_ops_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        assertThat(run("migrate")).isZero();
    }

    /** Runs {@code skipjack <args> --url ... --schema ...}; output lands in {@link #out} and {@link #err}. */
    private int run(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url, "--schema", schema));
        CommandLine cl = SkipjackCli.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(all.toArray(String[]::new));
    }

    private JsonNode runJson(String... args) throws Exception {
        int code = run(args);
        assertThat(code).as("exit code of %s; stderr: %s", List.of(args), err).isZero();
        return JSON.readTree(out.toString());
    }

    private long sql(String query) {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query.replace("{{jobs}}", "\"" + schema + "\".skipjack_jobs"))) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void findAFailedJobReadWhyAndRetryItFromTheCommandLine() throws Exception {
        long id = runJson("enqueue", "charge", "--args", "{\"order\": 7}", "--queue", "payments", "--max-attempts", "1", "--json").get("id").asLong();
        String[] worker = {"worker", "--register", "dev.skipjack.cli.testhandlers.ChargeHandlers", "--queue", "payments:2",
                "--stop-after", "1500ms"};
        assertThat(run(worker)).as("worker; stderr: %s", err).isZero();
        assertThat(sql("SELECT count(*) FROM {{jobs}} WHERE id = " + id + " AND state = 'discarded'")).isEqualTo(1);

        JsonNode page = runJson("jobs", "list", "--state", "discarded", "--json");
        assertThat(page.get("jobs")).hasSize(1);
        assertThat(page.get("jobs").get(0).get("id").asLong()).isEqualTo(id);
        assertThat(page.get("nextCursor").isNull()).isTrue();
        // A script reads why from the listing, in the shape the dashboard's API uses (docs/operating.md).
        assertThat(page.get("jobs").get(0).get("lastError").get("message").asText()).isEqualTo("card declined for order 7");

        assertThat(run("jobs", "show", Long.toString(id))).isZero();
        assertThat(out.toString()).contains("state      discarded")
                .contains("java.lang.IllegalStateException: card declined for order 7")
                .contains("at dev.skipjack.cli.testhandlers.ChargeHandlers");

        assertThat(run("jobs", "retry", Long.toString(id))).isZero();
        assertThat(out.toString()).contains("retried job " + id);
        assertThat(sql("SELECT count(*) FROM {{jobs}} WHERE id = " + id + " AND state = 'available'")).isEqualTo(1);
        assertThat(run("jobs", "retry", Long.toString(id))).as("already available").isEqualTo(ExitCode.NOTHING_CHANGED);

        assertThat(run(worker)).isZero();
        assertThat(sql("SELECT count(*) FROM {{jobs}} WHERE id = " + id + " AND state = 'completed' AND attempt = 2")).isEqualTo(1);
    }

    @Test
    void bulkRetryByJsonArgsFilterChangesOnlyMatchingJobs() throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("INSERT INTO \"" + schema + "\".skipjack_jobs (queue, kind, args, state, finished_at)"
                    + " SELECT 'default', 'send-email', jsonb_build_object('userId', 40 + n % 5, 'n', n), 'discarded', now()"
                    + " FROM generate_series(0, 14) AS n");
        }

        JsonNode listed = runJson("jobs", "list", "--kind", "send-email", "--state", "discarded", "--args", "{\"userId\": 42}", "--json");
        assertThat(listed.get("jobs")).hasSize(3);
        listed.get("jobs").forEach(j -> assertThat(j.get("args").get("userId").asInt()).isEqualTo(42));

        JsonNode retried = runJson("jobs", "retry", "--kind", "send-email", "--state", "discarded", "--args", "{\"userId\": 42}", "--json");
        assertThat(retried.get("changed").asLong()).isEqualTo(3);
        assertThat(sql("SELECT count(*) FROM {{jobs}} WHERE state = 'available'")).isEqualTo(3);
        assertThat(sql("SELECT count(*) FROM {{jobs}} WHERE state = 'available' AND (args->>'userId')::int = 42")).isEqualTo(3);

        // Keyset pages through the CLI: 15 jobs, 4 a page.
        List<Long> seen = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = cursor == null ? runJson("jobs", "list", "--limit", "4", "--json")
                    : runJson("jobs", "list", "--limit", "4", "--after", cursor, "--json");
            page.get("jobs").forEach(j -> seen.add(j.get("id").asLong()));
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
        } while (cursor != null);
        assertThat(seen).hasSize(15).doesNotHaveDuplicates().isSortedAccordingTo((a, b) -> Long.compare(b, a));

        assertThat(run("jobs", "delete", "--all")).isZero();
        assertThat(sql("SELECT count(*) FROM {{jobs}}")).isZero();
    }

    @Test
    void queuesPauseResumeListAndStats() throws Exception {
        assertThat(run("enqueue", "resize", "--queue", "media")).isZero();
        assertThat(run("queues", "pause", "media")).isZero();

        JsonNode queues = runJson("queues", "list", "--json");
        assertThat(queues).hasSize(1);
        assertThat(queues.get(0).get("name").asText()).isEqualTo("media");
        assertThat(queues.get(0).get("paused").asBoolean()).isTrue();
        assertThat(queues.get(0).get("counts").get("available").asLong()).isEqualTo(1);

        assertThat(run("queues", "list")).isZero();
        assertThat(out.toString()).contains("media").contains("paused");

        JsonNode stats = runJson("stats", "--json");
        assertThat(stats.get("totals").get("available").asLong()).isEqualTo(1);
        assertThat(run("stats", "--watch", "--interval", "100ms", "--count", "2")).isZero();
        assertThat(out.toString().split("Skipjack stats at", -1)).hasSize(3);

        assertThat(run("queues", "resume", "media")).isZero();
        assertThat(runJson("queues", "list", "--json").get(0).get("paused").asBoolean()).isFalse();
    }

    @Test
    void exitCodesTellScriptsWhatWentWrong() {
        assertThat(run("jobs", "show", "424242")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(err.toString()).contains("no job 424242");
        assertThat(run("jobs", "list", "--args", "{userId: 42")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("not valid JSON");
        assertThat(run("jobs", "list", "--state", "sleeping")).isEqualTo(ExitCode.USAGE);
        assertThat(run("jobs", "retry")).as("no ids and no filter").isEqualTo(ExitCode.USAGE);
        assertThat(run("enqueue", "x", "--args", "[1,")).isEqualTo(ExitCode.USAGE);
        assertThat(run("queues", "pause", "Not A Queue")).isEqualTo(ExitCode.USAGE);
        assertThat(run("worker", "--register", "com.example.Missing")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("class not found");

        CommandLine cl = SkipjackCli.newCommandLine();
        StringWriter noUrlErr = new StringWriter();
        cl.setErr(new PrintWriter(noUrlErr, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        if (System.getenv("SKIPJACK_DATABASE_URL") == null) {
            assertThat(cl.execute("jobs", "list")).isEqualTo(ExitCode.USAGE);
            assertThat(noUrlErr.toString()).contains("needs a database");
        }
    }

    @Test
    void tablesFitTheTerminalAndShowJobTextInert() {
        String longArgs = "{\"body\": \"" + "x".repeat(500) + "\", \"evil\": \"\\u001b[2J<script>\\n\"}";
        assertThat(run("enqueue", "send-email", "--args", longArgs)).isZero();
        assertThat(run("jobs", "list")).isZero();
        String[] lines = out.toString().split("\n");
        assertThat(lines).hasSizeGreaterThanOrEqualTo(2);
        for (String line : lines) {
            assertThat(line.length()).isLessThanOrEqualTo(dev.skipjack.cli.output.Table.terminalWidth());
            assertThat(line).doesNotContain("\u001b");
        }
        assertThat(lines[1]).contains("send-email").endsWith("…");
    }
}
