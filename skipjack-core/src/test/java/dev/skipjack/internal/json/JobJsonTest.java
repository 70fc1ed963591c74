package dev.skipjack.internal.json;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.JobKind;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import dev.skipjack.KindOptions;
import dev.skipjack.Skipjack;
import dev.skipjack.SkipjackAdmin;
import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JSON shape documented in docs/operating.md ("JSON output"), which {@code skipjack ... --json}
 * and the dashboard's API both answer with. Jobs are real rows read back through the query API;
 * the expected documents are written out here by hand, with values taken from the rows as
 * inserted or, for times the database chose, read with plain SQL.
 */
class JobJsonTest extends DatabaseTest {

    /** Parses the expected documents keeping 10.50 as 10.50, so a mapper that rounds args fails. */
    private static final ObjectMapper EXPECTED = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private SkipjackAdmin admin() {
        return client(builder()).admin();
    }

    private long insertRunningJobWithOneFailure() {
        return queryLong("INSERT INTO " + jobsTable() + " (queue, kind, args, priority, state, run_at, attempt, max_attempts,"
                + " errors, claimed_by, lease_until, created_at, attempted_at, stop_requested) VALUES ('payments', 'charge-card',"
                + " '{\"orderId\": 9007199254740993, \"amount\": 10.50, \"note\": \"<b>rush</b>\"}', 5, 'running',"
                + " '2026-03-01 09:00:00+00', 2, 3,"
                + " '[{\"at\": \"2026-03-01T09:00:01.5+00:00\", \"attempt\": 1, \"class\": \"java.net.SocketTimeoutException\","
                + "    \"message\": \"Read timed out\", \"worker\": \"node-a/1\", \"stack\": \"java.net.SocketTimeoutException: Read timed out\"}]',"
                + " 'node-b/7', '2026-03-01 09:05:30+00', '2026-03-01 08:59:59+00', '2026-03-01 09:05:00+00', 'cancelled')"
                + " RETURNING id");
    }

    @Test
    void aSingleJobHasEveryDocumentedFieldWithTheStoredValues() throws Exception {
        SkipjackAdmin admin = admin();
        long id = insertRunningJobWithOneFailure();

        JsonNode json = JobJson.jobWithErrors(admin.job(id).orElseThrow());

        assertSameJson(json, """
                {
                  "id": %d,
                  "queue": "payments",
                  "kind": "charge-card",
                  "state": "running",
                  "args": {"orderId": 9007199254740993, "amount": 10.50, "note": "<b>rush</b>"},
                  "priority": 5,
                  "attempt": 2,
                  "maxAttempts": 3,
                  "runAt": "2026-03-01T09:00:00Z",
                  "createdAt": "2026-03-01T08:59:59Z",
                  "attemptedAt": "2026-03-01T09:05:00Z",
                  "finishedAt": null,
                  "claimedBy": "node-b/7",
                  "leaseUntil": "2026-03-01T09:05:30Z",
                  "uniqueKey": null,
                  "tags": [],
                  "metadata": {},
                  "workflowId": null,
                  "workflowStep": null,
                  "concurrencyKey": null,
                  "stopRequested": "cancelled",
                  "output": null,
                  "errorCount": 1,
                  "lastError": {"at": "2026-03-01T09:00:01.500Z", "attempt": 1,
                                "class": "java.net.SocketTimeoutException", "message": "Read timed out"},
                  "errors": [{"at": "2026-03-01T09:00:01.500Z", "attempt": 1, "class": "java.net.SocketTimeoutException",
                              "message": "Read timed out", "stack": "java.net.SocketTimeoutException: Read timed out"}]
                }""".formatted(id));
        assertThat(json.get("args").toString()).as("args numbers as stored").contains("\"amount\":10.50");
    }

    @Test
    void aJobThatReallyFailedCarriesTheErrorSkipjackRecorded() {
        Skipjack worker = client(builder().queue("billing", 1)
                .handler(JobKind.of("charge-card", Order.class), KindOptions.defaults().withMaxAttempts(1), job -> {
                    throw new IllegalStateException("card declined: order " + job.args().orderId());
                }));
        worker.start();
        long id = worker.enqueue("charge-card", new Order(7), EnqueueOptions.defaults().withQueue("billing"));
        awaitState(worker, id, JobState.DISCARDED, Duration.ofSeconds(15));

        JsonNode json = JobJson.jobWithErrors(worker.admin().job(id).orElseThrow());

        assertThat(json.get("state").asText()).isEqualTo("discarded");
        assertThat(json.get("args").get("orderId").asLong()).isEqualTo(7);
        assertThat(json.get("attempt").asInt()).isEqualTo(1);
        assertThat(json.get("maxAttempts").asInt()).isEqualTo(1);
        assertThat(json.get("finishedAt").asText()).isEqualTo(sqlTime("finished_at", id));
        assertThat(json.get("leaseUntil").isNull()).as("a finished job holds no lease").isTrue();
        assertThat(json.get("errorCount").asInt()).isEqualTo(1);
        JsonNode error = json.get("errors").get(0);
        assertThat(error.get("at").asText()).isEqualTo(sqlTime("(errors->0->>'at')::timestamptz", id));
        assertThat(error.get("attempt").asInt()).isEqualTo(1);
        assertThat(error.get("class").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(error.get("message").asText()).isEqualTo("card declined: order 7");
        assertThat(error.get("stack").asText()).contains("at dev.skipjack.internal.json.JobJsonTest");
        assertThat(json.get("lastError")).as("the last error, without its stack")
                .isEqualTo(((ObjectNode) error).deepCopy().without("stack"));
    }

    @Test
    void aPageListsJobsWithoutTheirErrorHistoryAndCarriesTheCursor() {
        SkipjackAdmin admin = admin();
        long failed = insertRunningJobWithOneFailure();
        long fresh = queryLong("INSERT INTO " + jobsTable() + " (queue, kind) VALUES ('mail', 'send-email') RETURNING id");

        JsonNode first = JobJson.page(admin.jobs(JobQuery.all().limit(1)));
        JsonNode last = JobJson.page(admin.jobs(JobQuery.all().limit(1).after(fresh)));

        assertThat(first.get("jobs")).hasSize(1);
        JsonNode listed = first.get("jobs").get(0);
        assertThat(listed.get("id").asLong()).isEqualTo(fresh);
        assertThat(listed.get("args")).isEqualTo(EXPECTED.createObjectNode());
        assertThat(listed.get("lastError").isNull()).as("no errors yet").isTrue();
        assertThat(listed.has("errors")).as("lists leave the history to the single job").isFalse();
        assertThat(first.get("nextCursor").isNumber()).isTrue();
        assertThat(first.get("nextCursor").asLong()).isEqualTo(fresh);

        JsonNode older = last.get("jobs").get(0);
        assertThat(older.get("id").asLong()).isEqualTo(failed);
        assertThat(older.get("errorCount").asInt()).isEqualTo(1);
        assertThat(older.get("lastError").get("message").asText()).isEqualTo("Read timed out");
        assertThat(older.has("errors")).isFalse();
        assertThat(last.get("nextCursor").isNull()).as("the last page").isTrue();
    }

    @Test
    void queuesAndStatsCountEveryStateAndShowPauses() throws Exception {
        SkipjackAdmin admin = admin();
        execute("INSERT INTO " + jobsTable() + " (queue, kind, state, finished_at) VALUES"
                + " ('mail', 'send-email', 'available', null), ('mail', 'send-email', 'available', null),"
                + " ('mail', 'send-email', 'discarded', now()), ('media', 'resize', 'completed', now())");
        admin.pause("media");
        Instant at = Instant.parse("2026-03-01T10:00:00Z");

        JsonNode stats = JobJson.stats(at, admin.queues());

        assertSameJson(stats, """
                {
                  "at": "2026-03-01T10:00:00Z",
                  "queues": [
                    {"name": "mail", "paused": false, "pausedAt": null, "total": 3,
                     "counts": {"waiting": 0, "scheduled": 0, "available": 2, "running": 0, "retryable": 0,
                                "completed": 0, "discarded": 1, "cancelled": 0}, "servedBy": []},
                    {"name": "media", "paused": true, "pausedAt": "%s", "total": 1,
                     "counts": {"waiting": 0, "scheduled": 0, "available": 0, "running": 0, "retryable": 0,
                                "completed": 1, "discarded": 0, "cancelled": 0}, "servedBy": []}
                  ],
                  "totals": {"waiting": 0, "scheduled": 0, "available": 2, "running": 0, "retryable": 0,
                             "completed": 1, "discarded": 1, "cancelled": 0}
                }""".formatted(pausedAt("media")));
    }

    @Test
    void concurrencyKeysCarryTheirUsageAndTheStateOfAnOrderedKeysHolder() throws Exception {
        SkipjackAdmin admin = admin();
        String columns = " (queue, kind, state, finished_at, concurrency_key, concurrency_max, concurrency_order) VALUES ";
        execute("INSERT INTO " + jobsTable() + columns
                + "('q', 'sync', 'running', null, 'kind:sync/acme', 2, 'priority'),"
                + " ('q', 'sync', 'available', null, 'kind:sync/acme', 2, 'priority'),"
                + " ('q', 'sync', 'waiting', null, 'kind:sync/acme', 2, 'priority'),"
                + " ('q', 'step', 'running', null, 'seq:order-8', 1, 'fifo'),"
                + " ('q', 'step', 'waiting', null, 'seq:order-8', 1, 'fifo')");
        long blocker = queryLong("INSERT INTO " + jobsTable() + columns
                + "('q', 'step', 'discarded', now(), 'seq:order-7', 1, 'fifo_block') RETURNING id");
        execute("INSERT INTO " + jobsTable() + columns + "('q', 'step', 'waiting', null, 'seq:order-7', 1, 'fifo_block')");
        long acmeHolder = queryLong("SELECT min(id) FROM " + jobsTable() + " WHERE concurrency_key = 'kind:sync/acme'");
        long order8Holder = queryLong("SELECT min(id) FROM " + jobsTable() + " WHERE concurrency_key = 'seq:order-8'");
        java.util.List<Long> lookedUp = new java.util.ArrayList<>();

        JsonNode keys = JobJson.concurrencyKeys(admin.concurrencyKeys(), id -> {
            lookedUp.add(id);
            return admin.job(id);
        });

        assertSameJson(keys, """
                [
                  {"key": "kind:sync/acme", "max": 2, "periodMillis": null, "ordered": false, "holding": 2, "running": 1, "waiting": 1,
                   "heldBy": %d, "heldByState": null, "full": true, "blocked": false},
                  {"key": "seq:order-7", "max": 1, "periodMillis": null, "ordered": true, "holding": 1, "running": 0, "waiting": 1,
                   "heldBy": %d, "heldByState": "discarded", "full": true, "blocked": true},
                  {"key": "seq:order-8", "max": 1, "periodMillis": null, "ordered": true, "holding": 1, "running": 1, "waiting": 1,
                   "heldBy": %d, "heldByState": "running", "full": true, "blocked": false}
                ]""".formatted(acmeHolder, blocker, order8Holder));
        assertThat(lookedUp).as("only the holder not known to run is looked up").containsExactly(blocker);
    }

    @Test
    void aWorkflowListsItsStepsParentsFirstWithTheirEdgesAndJobs() throws Exception {
        Skipjack client = client(builder().kind(JobKind.of("step", Order.class)));
        dev.skipjack.EnqueuedWorkflow w = client.enqueueWorkflow(dev.skipjack.Workflow.named("nightly")
                .withPolicy(dev.skipjack.WorkflowPolicy.CONTINUE)
                .add("report", dev.skipjack.JobRequest.of("step", new Order(3)), dev.skipjack.Workflow.dependsOn("load", "extract"))
                .add("extract", dev.skipjack.JobRequest.of("step", new Order(1)))
                .add("load", dev.skipjack.JobRequest.of("step", new Order(2)), dev.skipjack.Workflow.dependsOn("extract")));
        // The edge from extract to report counted, as a completion of extract would have (plain SQL, no worker).
        execute("UPDATE " + table("skipjack_job_dependencies") + " SET satisfied = true WHERE child_id = " + w.jobId("report")
                + " AND parent_id = " + w.jobId("extract"));

        JsonNode json = JobJson.workflow(client.admin().workflow(w.id()).orElseThrow());

        String created = querySingleTime("SELECT created_at FROM " + table("skipjack_workflows") + " WHERE id = ?", w.id());
        assertThat(json.get("createdAt").asText()).isEqualTo(created);
        ObjectNode header = ((ObjectNode) json).deepCopy();
        header.remove("steps");
        assertSameJson(header, """
                {"id": %d, "name": "nightly", "state": "running", "policy": "continue", "remaining": 3,
                 "createdAt": "%s", "finishedAt": null}""".formatted(w.id(), created));
        assertThat(json.get("steps")).hasSize(3);
        String[] names = {"extract", "load", "report"};
        String[] dependsOn = {"[]", "[\"extract\"]", "[\"extract\",\"load\"]"};
        String[] satisfied = {"[]", "[]", "[\"extract\"]"};
        for (int i = 0; i < 3; i++) {
            JsonNode step = json.get("steps").get(i);
            assertThat(step.get("name").asText()).as("step %d, parents first", i).isEqualTo(names[i]);
            assertThat(step.get("dependsOn").toString()).isEqualTo(dependsOn[i]);
            assertThat(step.get("satisfied").toString()).isEqualTo(satisfied[i]);
            assertThat(step.get("job")).as("the step's job, as a page lists it")
                    .isEqualTo(JobJson.job(client.admin().job(w.jobId(names[i])).orElseThrow()));
            assertThat(step.get("job").get("workflowStep").asText()).isEqualTo(names[i]);
        }
        assertThat(json.get("steps").get(0).get("job").get("state").asText()).isEqualTo("available");
        assertThat(json.get("steps").get(2).get("job").get("state").asText()).isEqualTo("waiting");
    }

    /**
     * Compares what a client parsing the output would read: the document is written out and read
     * back, so a long 3 and an int 3 are the same number, as they are on the wire. Field order is
     * no part of the shape (jsonb keeps object keys in its own order) and is ignored.
     */
    private static void assertSameJson(JsonNode actual, String expected) throws Exception {
        JsonNode asRead = EXPECTED.readTree(EXPECTED.writeValueAsString(actual));
        assertThat(asRead).isEqualTo(EXPECTED.readTree(expected));
    }

    record Order(long orderId) {
    }

    /** A timestamp of job {@code id} as the ISO-8601 UTC text the JSON should carry, read without the query API. */
    private String sqlTime(String expression, long id) {
        return querySingleTime("SELECT " + expression + " FROM " + jobsTable() + " WHERE id = ?", id);
    }

    private String pausedAt(String queue) {
        return querySingleTime("SELECT paused_at FROM \"" + schema + "\".skipjack_queues WHERE name = ?", queue);
    }

    private String querySingleTime(String sql, Object param) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class).toInstant().toString();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
