package dev.skipjack;

import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.maintenance.LeaseRescuer;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.StatementLog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-17: completions are written in batches, one statement per kind of outcome, and every write is
 * guarded by (id, attempt, running): a late, duplicate or stale acknowledgement changes nothing.
 */
class BatchedCompletionTest extends DatabaseTest {

    record Args(int n) {
    }

    private Skipjack enqueuer;
    private SqlStatements sql;
    private CompletionWriter writer;

    @BeforeEach
    void setUp() {
        enqueuer = client(builder().kind(JobKind.of("work", Args.class)));
        sql = Dialect.POSTGRES.statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        writer = new CompletionWriter(sql);
    }

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    private List<ClaimedJob> claim(String workerId, int limit) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            return new JobClaimer(sql, workerId, Duration.ofMinutes(5)).claim(c, "default", Set.of(), limit);
        }
    }

    private int write(Completion... completions) throws Exception {
        return write(List.of(completions));
    }

    private int write(List<Completion> completions) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            return writer.write(c, completions);
        }
    }

    private static Completion failure(long id, int attempt) {
        return new Completion(id, attempt, "retryable", 60_000L, 0,
                "{\"attempt\": " + attempt + ", \"class\": \"Late\", \"message\": \"late failure\"}");
    }

    private static Completion discard(long id, int attempt) {
        return new Completion(id, attempt, "discarded", null, 0,
                "{\"attempt\": " + attempt + ", \"class\": \"Discarded\", \"message\": \"late discard\"}");
    }

    @Test
    void acknowledgementForAnotherAttemptChangesNothing() throws Exception {
        long id = enqueuer.enqueue("work", new Args(1));
        assertThat(claim("w1", 10)).extracting(ClaimedJob::attempt).containsExactly(1);
        JobRow running = row(id);

        assertThat(write(Completion.completed(id, 2))).isZero();
        assertThat(write(Completion.completed(id, 0))).isZero();
        assertThat(write(failure(id, 2), discard(id, 0))).isZero();
        assertThat(row(id)).isEqualTo(running);

        assertThat(write(Completion.completed(id, 1))).isEqualTo(1);
        assertThat(row(id).state()).isEqualTo("completed");
    }

    @Test
    void duplicateAcknowledgementOfACompletedJobChangesNothing() throws Exception {
        long id = enqueuer.enqueue("work", new Args(1));
        claim("w1", 10);
        assertThat(write(Completion.completed(id, 1))).isEqualTo(1);
        JobRow completed = row(id);
        assertThat(completed.state()).isEqualTo("completed");

        assertThat(write(Completion.completed(id, 1))).isZero();
        assertThat(write(failure(id, 1))).isZero();
        assertThat(write(discard(id, 1))).isZero();
        assertThat(write(new Completion(id, 1, "available", 0L, 1, null))).as("late snooze").isZero();
        assertThat(row(id)).isEqualTo(completed);
    }

    @Test
    void sameAcknowledgementTwiceInOneBatchCountsOnce() throws Exception {
        long id = enqueuer.enqueue("work", new Args(1));
        claim("w1", 10);
        assertThat(write(Completion.completed(id, 1), Completion.completed(id, 1))).isEqualTo(1);
        JobRow r = row(id);
        assertThat(r.state()).isEqualTo("completed");
        assertThat(r.errors()).isEmpty();
    }

    @Test
    void lateAcknowledgementOfARescuedAndReclaimedJobChangesNothing() throws Exception {
        long id = enqueuer.enqueue("work", new Args(1));
        claim("stalled-worker", 10);
        execute("UPDATE " + jobsTable() + " SET lease_until = now() - interval '1 second' WHERE id = " + id);
        assertThat(new LeaseRescuer(dataSource, sql).rescueAll()).isEqualTo(1);

        // Rescued, not yet claimed again: the stalled worker's acknowledgement must not finish it.
        JobRow rescued = row(id);
        assertThat(rescued.state()).isEqualTo("available");
        assertThat(write(Completion.completed(id, 1))).isZero();
        assertThat(write(failure(id, 1))).isZero();
        assertThat(row(id)).isEqualTo(rescued);

        // Claimed again by another worker: attempt 2 is running; attempt 1's acknowledgements still do nothing.
        assertThat(claim("new-worker", 10)).extracting(ClaimedJob::attempt).containsExactly(2);
        JobRow reclaimed = row(id);
        assertThat(write(Completion.completed(id, 1))).isZero();
        assertThat(write(failure(id, 1), discard(id, 1))).isZero();
        assertThat(row(id)).isEqualTo(reclaimed);
        assertThat(reclaimed.state()).isEqualTo("running");
        assertThat(reclaimed.claimedBy()).isEqualTo("new-worker");
        assertThat(reclaimed.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("LeaseExpired");

        assertThat(write(Completion.completed(id, 2))).isEqualTo(1);
        assertThat(row(id).state()).isEqualTo("completed");
    }

    @Test
    void batchOf500CompletionsIsOneStatement() throws Exception {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            requests.add(JobRequest.of("work", new Args(i)));
        }
        enqueuer.enqueueAll(requests);
        List<ClaimedJob> claimed = claim("w1", 500);
        assertThat(claimed).hasSize(500);

        StatementLog log = new StatementLog();
        List<String> statements = log.prepared();
        int changed;
        try (Connection c = log.wrap(dataSource.getConnection())) {
            changed = writer.write(c, claimed.stream().map(j -> Completion.completed(j.id(), j.attempt())).toList());
        }
        assertThat(changed).isEqualTo(500);
        assertThat(statements).hasSize(1);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'")).isEqualTo(500);
    }

    @Test
    void mixedBatchIsOneStatementPerKindOfOutcome() throws Exception {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            requests.add(JobRequest.of("work", new Args(i)));
        }
        enqueuer.enqueueAll(requests);
        List<ClaimedJob> claimed = claim("w1", 300);
        List<Completion> batch = new ArrayList<>();
        for (int i = 0; i < claimed.size(); i++) {
            ClaimedJob j = claimed.get(i);
            batch.add(i % 3 == 0 ? failure(j.id(), j.attempt()) : Completion.completed(j.id(), j.attempt()));
        }

        StatementLog log = new StatementLog();
        List<String> statements = log.prepared();
        int changed;
        try (Connection c = log.wrap(dataSource.getConnection())) {
            changed = writer.write(c, batch);
        }
        assertThat(changed).isEqualTo(300);
        assertThat(statements).hasSize(2);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'")).isEqualTo(200);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'retryable' AND jsonb_array_length(errors) = 1 AND errors->0->>'class' = 'Late'"))
                .isEqualTo(100);
    }

    @Test
    void runningWorkerAcknowledgesManyJobsPerStatement() {
        int jobs = 2_000;
        StatementLog log = new StatementLog();
        List<String> statements = log.prepared();
        DataSource counted = log.wrap(dataSource);
        Skipjack s = client(Skipjack.builder(counted).schema(schema)
                .pollInterval(Duration.ofMillis(50)).promoteInterval(Duration.ofMillis(50))
                .queue("default", 32).handler(JobKind.of("work", Args.class), job -> Outcome.complete()));
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of("work", new Args(i)));
        }
        s.enqueueAll(requests);
        s.start();

        await("all completed", Duration.ofSeconds(60),
                () -> queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'") == jobs);
        String completeJobs = sql.get("complete_jobs");
        long completionStatements = statements.stream().filter(completeJobs::equals).count();
        assertThat(completionStatements).as("completion statements for %d jobs", jobs)
                .isPositive()
                .isLessThanOrEqualTo(jobs / 5);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE attempt <> 1 OR errors <> '[]'::jsonb"))
                .isZero();
    }
}
