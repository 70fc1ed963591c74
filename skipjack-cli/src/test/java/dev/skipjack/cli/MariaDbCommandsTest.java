package dev.skipjack.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CLI on MariaDB, as a user runs it with {@code --url jdbc:mariadb://...}: the embedded
 * MariaDB of the core tests, or the server SKIPJACK_TEST_MARIADB_URL names. Each test has its own
 * database (a schema is a database there); expected values are read back with plain SQL.
 */
class MariaDbCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final String url = TestBackend.MARIADB.jdbcUrl();
    private String schema;
    private StringWriter out;
    private StringWriter err;

    @BeforeEach
    void freshDatabase() {
        schema = "cli_maria_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
    }

    private int execute(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        return CliInProcess.execute(out, err, List.of(args));
    }

    private long count(String query, String... params) {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(query)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long jobs(String state) {
        return count("SELECT count(*) FROM `" + schema + "`.skipjack_jobs WHERE state = ?", state);
    }

    @Test
    void migrateDemoJobsAndQueuesRunOnMariaDb() throws Exception {
        assertThat(execute("migrate", "--url", url, "--schema", schema)).as("migrate; %s%s", out, err).isZero();
        assertThat(out.toString()).contains("Applied migrations").contains("to schema " + schema);
        assertThat(count("SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = 'skipjack_jobs'",
                schema)).isEqualTo(1);

        assertThat(execute("demo", "--url", url, "--schema", schema, "--jobs", "300", "--concurrency", "4"))
                .as("demo; output:%n%s%n%s", out, err).isZero();
        assertThat(out.toString())
                .contains("300 of 300 jobs terminal")
                .contains("[ok]     transfers kept the books balanced")
                .contains("[ok]     each completed transfer was applied exactly once")
                .contains("[ok]     declined cards were discarded")
                .doesNotContain("[FAILED]");
        // The declined-cards check reads the JSON args with MariaDB's functions: compare with a plain text match.
        long declined = count("SELECT count(*) FROM `" + schema + "`.skipjack_jobs WHERE kind = 'charge-card'"
                + " AND args LIKE '%\"alwaysDeclined\":true%'");
        assertThat(declined).as("the demo's plan declines some cards").isPositive();
        assertThat(out.toString()).contains("declined cards were discarded after 3 attempts (" + declined + " of " + declined + ")");
        long completed = jobs("completed");
        long discarded = jobs("discarded");
        assertThat(completed + discarded + jobs("cancelled")).isEqualTo(300);
        assertThat(discarded).as("the demo fails some jobs on purpose").isPositive();

        assertThat(execute("queues", "list", "--url", url, "--schema", schema, "--json")).as("queues; %s", err).isZero();
        JsonNode queues = JSON.readTree(out.toString());
        assertThat(queues.findValuesAsText("name")).contains("default", "critical");
        long completedInQueues = 0;
        for (JsonNode q : queues) {
            completedInQueues += q.get("counts").get("completed").asLong();
        }
        assertThat(completedInQueues).isEqualTo(completed);

        assertThat(execute("jobs", "list", "--url", url, "--schema", schema, "--state", "discarded", "--limit", "500", "--json"))
                .as("jobs; %s", err).isZero();
        JsonNode page = JSON.readTree(out.toString());
        assertThat(page.get("jobs")).hasSize((int) discarded);
        page.get("jobs").forEach(j -> assertThat(j.get("state").asText()).isEqualTo("discarded"));
    }

    @Test
    void withoutSchemaTheTablesGoIntoTheUrlsDatabase() {
        String database = DatabaseUrl.parse(url).mySqlFamilyDatabase().orElseThrow();

        assertThat(execute("migrate", "--url", url)).as("migrate; %s%s", out, err).isZero();

        assertThat(out.toString()).contains("schema " + database);
        assertThat(count("SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = 'skipjack_jobs'",
                database)).isEqualTo(1);
        assertThat(execute("queues", "list", "--url", url)).as("queues; %s", err).isZero();
    }

    @Test
    void exportSqlPrintsTheMariaDbMigrations() {
        assertThat(execute("migrate", "--print-sql", "--url", url, "--schema", schema)).isZero();
        String fromUrl = out.toString();
        assertThat(fromUrl).contains("CREATE DATABASE IF NOT EXISTS `" + schema + "`")
                .contains("`" + schema + "`.`skipjack_jobs`")
                .doesNotContain("jsonb").doesNotContain("\"" + schema + "\"");

        assertThat(execute("migrate", "--print-sql", "--dialect", "mariadb", "--schema", schema)).isZero();
        assertThat(out.toString()).as("the same SQL without a database").isEqualTo(fromUrl);

        assertThat(execute("migrate", "--print-sql", "--dialect", "mariadb")).isEqualTo(2);
        assertThat(err.toString()).contains("needs --schema DATABASE");
    }

    record Sync(String customer, int n) {
    }

    @Test
    void keysListsAFullLimitAndABlockedSequenceOnMariaDb() throws Exception {
        assertThat(execute("migrate", "--url", url, "--schema", schema)).isZero();
        dev.skipjack.JobKind<Sync> sync = dev.skipjack.JobKind.of("sync", Sync.class).limitedTo(2, Sync::customer);
        dev.skipjack.JobKind<Sync> step = dev.skipjack.JobKind.of("step", Sync.class);
        long blocker;
        try (com.zaxxer.hikari.HikariDataSource ds = TestBackend.MARIADB.newDataSource(2);
             dev.skipjack.Skipjack client = dev.skipjack.Skipjack.builder(ds).schema(schema).kind(sync).build()) {
            for (int n = 1; n <= 3; n++) {
                client.enqueue(sync, new Sync("acme", n));
            }
            dev.skipjack.EnqueueOptions sequence = dev.skipjack.EnqueueOptions.defaults()
                    .withSequenceKey("order-7", dev.skipjack.SequenceOnDiscard.BLOCK);
            blocker = client.enqueue(step, new Sync("order-7", 1), sequence);
            client.enqueue(step, new Sync("order-7", 2), sequence);
            assertThat(client.admin().discard(blocker)).isTrue();
        }

        assertThat(execute("keys", "--url", url, "--schema", schema, "--json")).as("keys; %s", err).isZero();
        JsonNode keys = JSON.readTree(out.toString());
        assertThat(keys.findValuesAsText("key")).containsExactly("kind:sync/acme", "seq:order-7");
        assertThat(keys.get(0).get("holding").asLong()).isEqualTo(2);
        assertThat(keys.get(0).get("waiting").asLong()).isEqualTo(1);
        assertThat(keys.get(0).get("full").asBoolean()).isTrue();
        assertThat(keys.get(1).get("heldBy").asLong()).isEqualTo(blocker);
        assertThat(keys.get(1).get("blocked").asBoolean()).isTrue();
        assertThat(execute("keys", "--url", url, "--schema", schema)).isZero();
        assertThat(out.toString()).contains("blocked by job " + blocker + " (discarded)").contains("2 key(s): 1 full, 1 blocked");
    }

    @Test
    void dashboardServesTheApiOnMariaDb() throws Exception {
        assertThat(execute("migrate", "--url", url, "--schema", schema)).isZero();
        assertThat(execute("enqueue", "resize", "--queue", "media", "--url", url, "--schema", schema)).as("%s", err).isZero();
        StringWriter dashboardOut = new StringWriter();
        CommandLine cl = SkipjackCli.newCommandLine();
        cl.setOut(new PrintWriter(dashboardOut, true));
        cl.setErr(new PrintWriter(new StringWriter(), true));
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        Thread command = new Thread(() -> exit.complete(cl.execute("dashboard", "--url", url, "--schema", schema,
                "--port", "0", "--stop-after", "60s")), "dashboard-command");
        command.start();
        try {
            String base = DashboardCommandTest.awaitUrl(dashboardOut, exit);
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(base + "api/overview")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode overview = JSON.readTree(r.body());
            assertThat(overview.get("totals").get("available").asLong()).isEqualTo(1);
            assertThat(overview.get("queues").findValuesAsText("name")).containsExactly("media");
            assertThat(overview.get("concurrencyKeys")).isEmpty();
            assertThat(overview.get("concurrencyKeysInUse").asInt()).isZero();
        } finally {
            command.interrupt();
            command.join(Duration.ofSeconds(30).toMillis());
        }
        assertThat(command.isAlive()).as("command stopped").isFalse();
    }
}
