package dev.skipjack.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
    private static TestPostgres postgres;
    private static String url;

    private String schema;
    private StringWriter out;
    private StringWriter err;

    @BeforeAll
    static void startDatabase() {
        postgres = TestPostgres.start();
        url = postgres.url();
    }

    @AfterAll
    static void stopDatabase() {
        postgres.close();
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
        return CliInProcess.execute(out, err, all);
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
                .contains("at dev.skipjack.cli.testhandlers.ChargeHandlers")
                // What the handler reported before it failed (issue 12, item 6).
                .contains("progress   50% asking the bank  (attempt 1, at ")
                .contains("Log (1 line):")
                .contains("  attempt 1:")
                .contains("charging order 7 (attempt 1)");
        JsonNode shown = runJson("jobs", "show", Long.toString(id), "--json");
        assertThat(shown.get("progress").get("percent").asInt()).isEqualTo(50);
        assertThat(shown.get("progress").get("message").asText()).isEqualTo("asking the bank");
        assertThat(shown.get("log")).hasSize(1);
        assertThat(shown.get("log").get(0).get("line").asText()).isEqualTo("charging order 7 (attempt 1)");
        assertThat(shown.get("log").get(0).get("number").asInt()).isEqualTo(1);

        assertThat(run("jobs", "retry", Long.toString(id))).isZero();
        assertThat(out.toString()).contains("retried job " + id);
        assertThat(sql("SELECT count(*) FROM {{jobs}} WHERE id = " + id + " AND state = 'available'")).isEqualTo(1);
        assertThat(run("jobs", "retry", Long.toString(id))).as("already available").isEqualTo(ExitCode.NOTHING_CHANGED);

        assertThat(run(worker)).isZero();
        assertThat(sql("SELECT count(*) FROM {{jobs}} WHERE id = " + id + " AND state = 'completed' AND attempt = 2")).isEqualTo(1);
    }

    @Test
    void addListAndRemoveACronScheduleFromTheCommandLine() throws Exception {
        assertThat(run("schedules", "add", "nightly", "30 2 * * *", "report", "--args", "{\"name\": \"daily\"}",
                "--zone", "Europe/Paris", "--queue", "reports")).as("stderr: %s", err).isZero();
        assertThat(out.toString()).contains("Schedule nightly enqueues report at '30 2 * * *' (Europe/Paris); next tick");
        assertThat(sql("SELECT count(*) FROM \"" + schema + "\".skipjack_cron_schedules WHERE name = 'nightly'"
                + " AND queue = 'reports' AND args->>'name' = 'daily'")).isEqualTo(1);

        JsonNode listed = runJson("schedules", "list", "--json");
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).get("zone").asText()).isEqualTo("Europe/Paris");
        assertThat(listed.get(0).get("lastJobId").isNull()).isTrue();
        java.time.ZonedDateTime next = java.time.Instant.parse(listed.get(0).get("nextTickAt").asText())
                .atZone(java.time.ZoneId.of("Europe/Paris"));
        assertThat(next.getHour() * 60 + next.getMinute()).as("02:30 Paris time, or 03:30 on a spring-forward day")
                .isIn(150, 210);

        assertThat(run("schedules", "add", "bad", "30 25 * * *", "report")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("hour field (column 4) '25'");

        assertThat(run("schedules", "remove", "nightly")).isZero();
        assertThat(run("schedules", "remove", "nightly")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(sql("SELECT count(*) FROM \"" + schema + "\".skipjack_cron_schedules")).isZero();
    }

    @Test
    void nodesListsTheRunningClientsAndTheJobsTheyRun() throws Exception {
        assertThat(run("nodes")).isZero();
        assertThat(out.toString()).contains("No node is running.");
        org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
        ds.setURL(url);
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        dev.skipjack.JobKind<JsonNode> slow = dev.skipjack.JobKind.of("slow", JsonNode.class);
        try (dev.skipjack.Skipjack node = dev.skipjack.Skipjack.builder(ds).schema(schema).workerId("cli-node-1")
                .queue("default", 2).handler(slow, job -> {
                    running.countDown();
                    release.await(30, java.util.concurrent.TimeUnit.SECONDS);
                    return dev.skipjack.Outcome.complete();
                }).build()) {
            node.start();
            long id = node.enqueue(slow, JSON.createObjectNode());
            assertThat(running.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            JsonNode nodes = null;
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline) {
                nodes = runJson("nodes", "--json");
                if (nodes.size() == 1) {
                    break;
                }
                Thread.onSpinWait();
            }
            assertThat(nodes).hasSize(1);
            assertThat(nodes.get(0).get("workerId").asText()).isEqualTo("cli-node-1");
            assertThat(nodes.get(0).get("queues").asText()).isEqualTo("default:2");
            assertThat(nodes.get(0).get("running").get(0).get("id").asLong()).isEqualTo(id);
            assertThat(run("nodes")).isZero();
            assertThat(out.toString()).contains("cli-node-1 runs job " + id + " (slow on default) for");
            release.countDown();
        }
    }

    record Sync(String customer, int n) {
    }

    /**
     * {@code skipjack keys} against keys a client put in the database: a kind limited to 2 per
     * customer with 3 jobs of one customer (full, one waiting), an enqueue's key with room to spare
     * (user text, shown as it is: control characters are refused at enqueue),
     * and a BLOCK sequence whose first job an operator discarded (blocked, its next job waiting).
     */
    @Test
    void keysListsEachKeyWithItsUsageAndMarksFullAndBlockedOnes() throws Exception {
        assertThat(run("keys")).isZero();
        assertThat(out.toString()).contains("No concurrency or sequence key is in use.");
        assertThat(runJson("keys", "--json")).isEmpty();

        org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
        ds.setURL(url);
        dev.skipjack.JobKind<Sync> sync = dev.skipjack.JobKind.of("sync", Sync.class).limitedTo(2, Sync::customer);
        dev.skipjack.JobKind<Sync> step = dev.skipjack.JobKind.of("step", Sync.class);
        long blocker;
        long next;
        long apiJob;
        try (dev.skipjack.Skipjack client = dev.skipjack.Skipjack.builder(ds).schema(schema).kind(sync).build()) {
            for (int n = 1; n <= 3; n++) {
                client.enqueue(sync, new Sync("acme", n));
            }
            apiJob = client.enqueue(step, new Sync("api", 1),
                    dev.skipjack.EnqueueOptions.defaults().withConcurrencyKey("api <b>&amp;", 5));
            dev.skipjack.EnqueueOptions sequence = dev.skipjack.EnqueueOptions.defaults()
                    .withSequenceKey("order-7", dev.skipjack.SequenceOnDiscard.BLOCK);
            blocker = client.enqueue(step, new Sync("order-7", 1), sequence);
            next = client.enqueue(step, new Sync("order-7", 2), sequence);
            assertThat(client.admin().discard(blocker)).isTrue();
        }
        assertThat(sql("SELECT count(*) FROM {{jobs}} WHERE id = " + next + " AND state = 'waiting'")).isEqualTo(1);

        JsonNode keys = runJson("keys", "--json");
        assertThat(keys).hasSize(3);
        JsonNode acme = keys.get(1);
        assertThat(acme.get("key").asText()).isEqualTo("kind:sync/acme");
        assertThat(acme.get("max").asInt()).isEqualTo(2);
        assertThat(acme.get("ordered").asBoolean()).isFalse();
        assertThat(acme.get("holding").asLong()).isEqualTo(2);
        assertThat(acme.get("running").asLong()).isZero();
        assertThat(acme.get("waiting").asLong()).isEqualTo(1);
        assertThat(acme.get("heldByState").isNull()).as("a limit has several holders").isTrue();
        assertThat(acme.get("full").asBoolean()).isTrue();
        assertThat(acme.get("blocked").asBoolean()).isFalse();
        JsonNode api = keys.get(0);
        assertThat(api.get("key").asText()).isEqualTo("key:api <b>&amp;");
        assertThat(api.get("holding").asLong()).isEqualTo(1);
        assertThat(api.get("heldBy").asLong()).isEqualTo(apiJob);
        assertThat(api.get("full").asBoolean()).isFalse();
        JsonNode order = keys.get(2);
        assertThat(order.get("key").asText()).isEqualTo("seq:order-7");
        assertThat(order.get("ordered").asBoolean()).isTrue();
        assertThat(order.get("heldBy").asLong()).isEqualTo(blocker);
        assertThat(order.get("heldByState").asText()).isEqualTo("discarded");
        assertThat(order.get("waiting").asLong()).isEqualTo(1);
        assertThat(order.get("blocked").asBoolean()).isTrue();

        assertThat(run("keys")).isZero();
        String[] lines = out.toString().split("\n");
        assertThat(lines[0]).startsWith("KEY").contains("LIMIT", "ORDERED", "HOLDING", "RUNNING", "WAITING", "HELD BY", "STATUS");
        assertThat(lines[1]).startsWith("key:api <b>&amp;").containsPattern("5 +no +1/5 +0 +0 +" + apiJob + " +-$");
        assertThat(lines[2]).startsWith("kind:sync/acme").containsPattern("2 +no +2/2 +0 +1 +\\d+ +full$");
        assertThat(lines[3]).startsWith("seq:order-7")
                .containsPattern("1 +yes +1/1 +0 +1 +" + blocker + " +blocked by job " + blocker + " \\(discarded\\)$");
        assertThat(lines[4]).isEqualTo("3 key(s): 1 full, 1 blocked");

        // The operator deletes the discarded job: a running node's admission pass lets the sequence go on.
        assertThat(run("jobs", "delete", Long.toString(blocker))).isZero();
        JsonNode after;
        try (dev.skipjack.Skipjack node = dev.skipjack.Skipjack.builder(ds).schema(schema).queue("elsewhere", 1)
                .pollInterval(java.time.Duration.ofMillis(50)).build()) {
            node.start();
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
            after = runJson("keys", "--json");
            while (after.size() != 3 || after.get(2).get("heldBy").asLong() != next) {
                assertThat(System.nanoTime()).as("seq:order-7 admitted its next job: %s", after).isLessThan(deadline);
                Thread.sleep(50);
                after = runJson("keys", "--json");
            }
        }
        assertThat(after.get(2).get("heldByState").asText()).isEqualTo("available");
        assertThat(after.get(2).get("blocked").asBoolean()).isFalse();
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
    void aSchemaWithoutSkipjacksTablesIsAnsweredWithTheSchemasThatHaveThem() {
        String migrated = schema;
        schema = "cli_empty_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        for (String[] command : List.of(new String[]{"jobs", "list"}, new String[]{"queues", "list"}, new String[]{"stats"})) {
            assertThat(run(command)).as("%s", List.of(command)).isNotZero();
            assertThat(err.toString())
                    .contains("no Skipjack tables in schema " + schema)
                    .contains(migrated)
                    .contains("--schema")
                    .doesNotContain("does not exist");
        }
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

        StringWriter noUrlErr = new StringWriter();
        if (System.getenv("SKIPJACK_DATABASE_URL") == null) {
            assertThat(CliInProcess.execute(new StringWriter(), noUrlErr, List.of("jobs", "list"))).isEqualTo(ExitCode.USAGE);
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
