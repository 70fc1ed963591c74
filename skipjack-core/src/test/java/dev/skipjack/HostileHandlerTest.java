package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bad input from the handler side: outcomes the database cannot store as given, absurd delays,
 * and transactional handlers that try to end or lose the job's transaction. Each gets a recorded,
 * counted outcome; no job is left running, retried for free forever, or run twice; other jobs flow.
 */
class HostileHandlerTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    private JobRow awaitRow(long id, String state) {
        await("job " + id + " to be " + state, WAIT, () -> row(id).state().equals(state));
        return row(id);
    }

    @Test
    void anErrorMessageWithANulCharacterIsStoredAndDoesNotHoldBackOtherAcknowledgements() {
        Skipjack s = client(builder().queue("default", 4).handler(JobKind.of("k", Args.class), job -> {
            if (job.args().n() == 0) {
                throw new IllegalStateException("bad byte \0 in the message");
            }
            return Outcome.complete();
        }));
        List<JobRequest> jobs = new ArrayList<>();
        jobs.add(JobRequest.of("k", new Args(0), EnqueueOptions.defaults().withMaxAttempts(1)));
        for (int i = 1; i <= 200; i++) {
            jobs.add(JobRequest.of("k", new Args(i)));
        }
        List<Long> ids = s.enqueueAll(jobs);
        s.start();

        JobRow poisoned = awaitRow(ids.get(0), "discarded");
        assertThat(poisoned.errors()).hasSize(1);
        assertThat(poisoned.errors().get(0).errorClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(poisoned.errors().get(0).message()).contains("bad byte").contains("in the message");
        await("the other 200 completed", WAIT, () -> queryLong(
                "SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'") == 200);
    }

    @Test
    void anAbsurdRetryOrSnoozeDelayIsCappedInsteadOfFailingTheAcknowledgement() {
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("k", Args.class), job ->
                job.args().n() == 0 ? Outcome.retry(Duration.ofDays(365L * 100_000), "much later")
                        : Outcome.snooze(Duration.ofDays(365L * 100_000))));
        long retried = s.enqueue("k", new Args(0));
        long snoozed = s.enqueue("k", new Args(1));
        s.start();

        JobRow r = awaitRow(retried, "retryable");
        JobRow z = awaitRow(snoozed, "scheduled");
        long yearsAhead = queryLong("SELECT extract(year FROM run_at) - extract(year FROM now()) FROM " + jobsTable()
                + " WHERE id = ?", retried);
        assertThat(yearsAhead).isBetween(99L, 101L);
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::message).containsExactly("much later");
        assertThat(z.maxAttempts()).as("snooze gives the attempt back").isEqualTo(z.attempt() + EnqueueOptions.DEFAULT_MAX_ATTEMPTS);
    }

    @Test
    void aTransactionalHandlerCannotCommitOrRollBackTheJobsTransaction() {
        AtomicInteger refusals = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("tx", Args.class),
                KindOptions.defaults().withMaxAttempts(1), (job, tx) -> {
                    try (PreparedStatement ps = tx.prepareStatement(
                            "INSERT INTO \"" + schema + "\".effects VALUES (?)")) {
                        ps.setLong(1, job.id());
                        ps.executeUpdate();
                    }
                    try {
                        if (job.args().n() == 0) {
                            tx.commit();
                        } else {
                            tx.rollback();
                        }
                    } catch (java.sql.SQLException refused) {
                        refusals.incrementAndGet();
                        throw refused;
                    }
                    return Outcome.complete();
                }));
        execute("CREATE TABLE \"" + schema + "\".effects (job_id bigint NOT NULL)");
        long committer = s.enqueue("tx", new Args(0));
        long rollbacker = s.enqueue("tx", new Args(1));
        s.start();

        for (long id : List.of(committer, rollbacker)) {
            JobRow row = awaitRow(id, "discarded");
            assertThat(row.attempt()).isEqualTo(1);
            assertThat(row.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains("must not call Connection."));
        }
        assertThat(refusals.get()).isEqualTo(2);
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".effects"))
                .as("a failed job's writes never commit").isZero();
    }

    /**
     * The job's connection cannot be reached around the refusals through a statement's or the
     * metadata's getConnection(), and cannot be used once its handler returned: a leaked reference
     * would write into later jobs' transactions.
     */
    @Test
    void aTransactionalHandlerCannotReachTheJobsConnectionAroundItsGuardNorKeepIt() throws Exception {
        java.util.concurrent.atomic.AtomicReference<java.sql.Connection> leaked = new java.util.concurrent.atomic.AtomicReference<>();
        Skipjack s = client(builder().queue("default", 1).transactionalHandler(JobKind.of("tx", Args.class),
                KindOptions.defaults().withMaxAttempts(1), (job, tx) -> {
                    try (PreparedStatement ps = tx.prepareStatement(
                            "INSERT INTO \"" + schema + "\".effects VALUES (?)")) {
                        ps.setLong(1, job.id());
                        ps.executeUpdate();
                        if (job.args().n() == 0) {
                            ps.getConnection().commit();
                        } else if (job.args().n() == 1) {
                            tx.getMetaData().getConnection().commit();
                        }
                    }
                    leaked.set(tx);
                    return Outcome.complete();
                }));
        execute("CREATE TABLE \"" + schema + "\".effects (job_id bigint NOT NULL)");
        long throughStatement = s.enqueue("tx", new Args(0));
        long throughMetadata = s.enqueue("tx", new Args(1));
        long keeper = s.enqueue("tx", new Args(2));
        s.start();

        for (long id : List.of(throughStatement, throughMetadata)) {
            JobRow row = awaitRow(id, "discarded");
            assertThat(row.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains("must not"));
        }
        awaitRow(keeper, "completed");
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".effects"))
                .as("only the completed job's write").isOne();
        assertThatThrownBy(() -> leaked.get().createStatement()).isInstanceOf(java.sql.SQLException.class)
                .hasMessageContaining("the job's transaction is over");
    }

    @Test
    void aTransactionalJobWhoseConnectionIsKilledCountsTheAttemptAndRecordsWhy() {
        AtomicInteger runs = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 1).transactionalHandler(JobKind.of("tx", Args.class),
                KindOptions.defaults().withMaxAttempts(2).withRetryPolicy(RetryPolicy.fixed(Duration.ZERO)), (job, tx) -> {
                    runs.incrementAndGet();
                    // The job's own backend dies under it, as when the server kills the session.
                    try (PreparedStatement ps = tx.prepareStatement("SELECT pg_terminate_backend(pg_backend_pid())")) {
                        ps.execute();
                    }
                    return Outcome.complete();
                }));
        long id = s.enqueue("tx", new Args(0));
        s.start();

        JobRow row = awaitRow(id, "discarded");
        assertThat(row.attempt()).as("both lost attempts counted").isEqualTo(2);
        assertThat(row.errors()).hasSize(2);
        assertThat(runs.get()).isEqualTo(2);
    }

    @Test
    void aKindThatIsOnlyDeclaredHereIsLeftForTheServiceThatRunsIt() throws Exception {
        Skipjack producer = client(builder().queue("default", 2)
                .kind(JobKind.of("elsewhere", Args.class))
                .handler(JobKind.of("here", Args.class), job -> Outcome.complete()));
        long elsewhere = producer.enqueue("elsewhere", new Args(0));
        long here = producer.enqueue("here", new Args(1));
        producer.start();
        awaitRow(here, "completed");
        assertThat(row(elsewhere).state()).isEqualTo("available");
        assertThat(row(elsewhere).attempt()).isZero();

        AtomicInteger ran = new AtomicInteger();
        client(builder().queue("default", 1).handler(JobKind.of("elsewhere", Args.class), job -> {
            ran.incrementAndGet();
            return Outcome.complete();
        })).start();
        awaitRow(elsewhere, "completed");
        assertThat(ran.get()).isEqualTo(1);
    }
}
