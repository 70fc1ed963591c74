package dev.skipjack.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.EnqueuedWorkflow;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.Workflow;
import dev.skipjack.WorkflowState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.skipjack.Workflow.dependsOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code skipjack workflows show} against a real PostgreSQL (the embedded one, or
 * SKIPJACK_TEST_PG_URL): a diamond workflow before and after it runs, one whose first step fails,
 * an unknown id, and the same command on a SQLite file. Each PostgreSQL test has its own schema.
 */
class WorkflowsCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static final JobKind<JsonNode> STEP = JobKind.of("step", JsonNode.class);
    private static final JobKind<JsonNode> BREAK = JobKind.of("break", JsonNode.class);
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
        schema = "cli_wf_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        assertThat(run("migrate")).isZero();
    }

    private int run(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url, "--schema", schema));
        return CliInProcess.execute(out, err, all);
    }

    private Skipjack node() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        return Skipjack.builder(ds).schema(schema).queue("default", 4).pollInterval(Duration.ofMillis(50))
                .handler(STEP, job -> Outcome.complete())
                .handler(BREAK, job -> Outcome.discard("upstream file missing"))
                .build();
    }

    private static Workflow diamond(JobKind<JsonNode> first) {
        return Workflow.named("nightly")
                .add("a", JobRequest.of(first, JSON.createObjectNode()))
                .add("b", JobRequest.of(STEP, JSON.createObjectNode()), dependsOn("a"))
                .add("c", JobRequest.of(STEP, JSON.createObjectNode()), dependsOn("a"))
                .add("d", JobRequest.of(STEP, JSON.createObjectNode()), dependsOn("b", "c"));
    }

    /** Polls {@code skipjack workflows show --json} until the workflow is finished, or fails after 30 s. */
    private JsonNode awaitFinished(long id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode w;
        do {
            assertThat(run("workflows", "show", Long.toString(id), "--json")).as("stderr: %s", err).isZero();
            w = JSON.readTree(out.toString());
            if (!w.get("state").asText().equals("running")) {
                return w;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() < deadline);
        throw new AssertionError("workflow " + id + " still running after 30 s: " + w);
    }

    /** The table row of one step: the line starting with its name. */
    private String row(String step) {
        return out.toString().lines().filter(l -> l.startsWith(step + " ")).map(String::strip).findFirst()
                .orElseThrow(() -> new AssertionError("no row for step " + step + " in:\n" + out));
    }

    @Test
    void aDiamondShownBeforeAndAfterItRuns() throws Exception {
        try (Skipjack node = node()) {
            EnqueuedWorkflow w = node.enqueueWorkflow(diamond(STEP));
            String id = Long.toString(w.id());

            assertThat(run("workflows", "show", id)).as("stderr: %s", err).isZero();
            String before = out.toString();
            assertThat(before).contains("Workflow " + id + "  nightly").contains("  state      running")
                    .contains("  policy     cancel").contains("  remaining  4 of 4 jobs").contains("  finished   -");
            assertThat(before).contains("STEP  JOB");
            // Dependency order: every step's row comes after the rows of the steps it depends on.
            assertThat(before.indexOf("\na ")).isLessThan(before.indexOf("\nb ")).isLessThan(before.indexOf("\nd "));
            assertThat(before.indexOf("\nc ")).isLessThan(before.indexOf("\nd "));
            assertThat(row("a")).contains(Long.toString(w.jobId("a"))).contains("available").contains("0/");
            assertThat(row("b")).contains(Long.toString(w.jobId("b"))).contains("waiting").endsWith("a");
            assertThat(row("d")).contains("waiting").endsWith("b, c");

            node.start();
            JsonNode done = awaitFinished(w.id());
            assertThat(done.get("state").asText()).isEqualTo("completed");
            assertThat(done.get("remaining").asInt()).isZero();
            assertThat(done.get("steps")).hasSize(4);
            assertThat(done.get("steps").get(3).get("name").asText()).isEqualTo("d");
            assertThat(done.get("steps").get(3).get("dependsOn").toString()).isEqualTo("[\"b\",\"c\"]");
            assertThat(done.get("steps").get(3).get("satisfied").toString()).isEqualTo("[\"b\",\"c\"]");
            assertThat(done.get("steps").get(3).get("job").get("id").asLong()).isEqualTo(w.jobId("d"));
            assertThat(done.get("steps").get(3).get("job").get("state").asText()).isEqualTo("completed");

            assertThat(run("workflows", "show", id)).isZero();
            assertThat(out.toString()).contains("  state      completed").contains("  remaining  0 of 4 jobs")
                    .doesNotContain("  finished   -");
            assertThat(row("a")).contains("completed").contains("1/");
            assertThat(row("d")).contains("completed").endsWith("b " + WorkflowsCommand.SATISFIED + ", c " + WorkflowsCommand.SATISFIED);
            assertThat(node.admin().workflow(w.id()).orElseThrow().state()).isEqualTo(WorkflowState.COMPLETED);

            // A workflow job's page points at its workflow.
            assertThat(run("jobs", "show", Long.toString(w.jobId("b")))).isZero();
            assertThat(out.toString()).contains("workflow   " + id + ", step b (all its steps: skipjack workflows show " + id + ")");
        }
    }

    @Test
    void aFailedStepShowsItsErrorAndTheCancelledDependentsTheirs() throws Exception {
        try (Skipjack node = node()) {
            EnqueuedWorkflow w = node.enqueueWorkflow(diamond(BREAK));
            node.start();
            JsonNode done = awaitFinished(w.id());
            assertThat(done.get("state").asText()).isEqualTo("failed");

            assertThat(run("workflows", "show", Long.toString(w.id()))).isZero();
            assertThat(out.toString()).contains("  state      failed");
            assertThat(row("a")).contains("discarded").contains("upstream file missing");
            assertThat(row("b")).contains("cancelled").contains("DependencyFailed");
            assertThat(row("d")).contains("cancelled").contains("DependencyFailed");
        }
    }

    @Test
    void showsAWorkflowOnSqliteToo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String sqlite = "jdbc:sqlite:" + dir.resolve("wf.db");
        assertThat(runOn(sqlite, "migrate")).as("stderr: %s", err).isZero();
        org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
        config.setJournalMode(org.sqlite.SQLiteConfig.JournalMode.WAL);
        config.setBusyTimeout(10_000);
        config.setTransactionMode(org.sqlite.SQLiteConfig.TransactionMode.IMMEDIATE);
        org.sqlite.SQLiteDataSource ds = new org.sqlite.SQLiteDataSource(config);
        ds.setUrl(sqlite);
        try (Skipjack client = Skipjack.builder(ds).kind(STEP).build()) {
            EnqueuedWorkflow w = client.enqueueWorkflow(diamond(STEP));
            assertThat(runOn(sqlite, "workflows", "show", Long.toString(w.id()))).as("stderr: %s", err).isZero();
            assertThat(out.toString()).contains("  state      running").contains("  remaining  4 of 4 jobs");
            assertThat(row("a")).contains("available");
            assertThat(row("d")).contains("waiting").endsWith("b, c");
            assertThat(runOn(sqlite, "workflows", "show", "999")).isEqualTo(ExitCode.NOT_FOUND);
        }
    }

    /** Runs {@code skipjack <args> --url <url>} without a schema (SQLite has one). */
    private int runOn(String databaseUrl, String... args) {
        out = new StringWriter();
        err = new StringWriter();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", databaseUrl));
        return CliInProcess.execute(out, err, all);
    }

    @Test
    void anUnknownWorkflowSaysSoAndExitsNotFound() {
        assertThat(run("workflows", "show", "424242")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(err.toString()).contains("skipjack workflows show: no workflow 424242");
        assertThat(out.toString()).isEmpty();
        assertThat(run("workflows", "show", "424242", "--json")).isEqualTo(ExitCode.NOT_FOUND);
    }
}
