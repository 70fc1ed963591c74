package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-4: a transactional handler's writes and its job's completion commit together; a failure rolls
 * the writes back and records the failed attempt in the same transaction.
 */
class TransactionalModeTest extends EveryBackendTest {

    record Args(int n) {
    }

    /** mode 0: succeeds; 1: throws on its first attempt only; 2: always throws. */
    record Transfer(int from, int to, int amount, int mode) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final KindOptions IMMEDIATE_RETRY = KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ZERO));

    private final CountDownLatch gate = new CountDownLatch(1);
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();

    @AfterEach
    void openGate() {
        gate.countDown();
    }

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    private JobRow awaitRow(long id, String state) {
        await("job " + id + " to be " + state, WAIT, () -> row(id).state().equals(state));
        return row(id);
    }

    private void createSideEffects() {
        execute("CREATE TABLE " + table("side_effects") + " (job_id bigint NOT NULL, attempt int NOT NULL)");
    }

    private void writeSideEffect(Connection tx, Job<?> job) throws Exception {
        try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + table("side_effects") + " VALUES (?, ?)")) {
            ps.setLong(1, job.id());
            ps.setInt(2, job.attempt());
            ps.executeUpdate();
        }
    }

    private long sideEffects(long jobId) {
        return queryLong("SELECT count(*) FROM " + table("side_effects") + " WHERE job_id = ?", jobId);
    }

    @Test
    void handlersWritesCommitTogetherWithTheCompletion() throws Exception {
        CountDownLatch written = new CountDownLatch(1);
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("tx", Args.class), (job, tx) -> {
            writeSideEffect(tx, job);
            written.countDown();
            gate.await();
            return Outcome.complete();
        }));
        createSideEffects();
        long id = s.enqueue("tx", new Args(1));
        s.start();
        assertThat(written.await(10, TimeUnit.SECONDS)).isTrue();

        // Mid-transaction, nothing is visible outside: neither the write nor even the claim.
        assertThat(sideEffects(id)).isZero();
        JobRow during = row(id);
        assertThat(during.state()).isEqualTo("available");
        assertThat(during.attempt()).isZero();

        gate.countDown();
        JobRow done = awaitRow(id, "completed");
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.errors()).isEmpty();
        assertThat(done.finishedAt()).isAfterOrEqualTo(done.attemptedAt());
        assertThat(sideEffects(id)).isEqualTo(1);
        assertThat(queryLong("SELECT attempt FROM " + table("side_effects") + " WHERE job_id = ?", id)).isEqualTo(1);
    }

    @Test
    void throwingHandlersWritesAreRolledBackAndTheFailureRecorded() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("tx", Args.class), IMMEDIATE_RETRY,
                (job, tx) -> {
                    writeSideEffect(tx, job);
                    if (job.attempt() == 1) {
                        throw new IllegalStateException("failed after writing");
                    }
                    return Outcome.complete();
                }));
        createSideEffects();
        long id = s.enqueue("tx", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));
        s.start();

        JobRow r = awaitRow(id, "completed");
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.errors()).hasSize(1);
        assertThat(r.errors().get(0).errorClass()).isEqualTo("java.lang.IllegalStateException");
        assertThat(r.errors().get(0).message()).isEqualTo("failed after writing");
        assertThat(r.errors().get(0).attempt()).isEqualTo(1);
        assertThat(r.errors().get(0).stack()).contains("failed after writing");
        // Only the successful attempt's write survived.
        assertThat(sideEffects(id)).isEqualTo(1);
        assertThat(queryLong("SELECT attempt FROM " + table("side_effects") + " WHERE job_id = ?", id)).isEqualTo(2);
    }

    @Test
    void alwaysFailingHandlerIsDiscardedWithNothingWritten() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("tx", Args.class), IMMEDIATE_RETRY,
                (job, tx) -> {
                    writeSideEffect(tx, job);
                    throw new IllegalStateException("attempt " + job.attempt());
                }));
        createSideEffects();
        long id = s.enqueue("tx", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));
        s.start();

        JobRow r = awaitRow(id, "discarded");
        assertThat(r.attempt()).isEqualTo(3);
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::message).containsExactly("attempt 1", "attempt 2", "attempt 3");
        assertThat(sideEffects(id)).isZero();
    }

    @Test
    void outcomeOtherThanCompleteRollsBackTheWrites() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("tx", Args.class), IMMEDIATE_RETRY,
                (job, tx) -> {
                    writeSideEffect(tx, job);
                    switch (job.args().n()) {
                        case 1:
                            return Outcome.discard("changed my mind");
                        case 2:
                            return Outcome.cancel("not wanted");
                        default:
                            return job.attempt() == 1 ? Outcome.snooze(Duration.ZERO) : Outcome.complete();
                    }
                }));
        createSideEffects();
        long discarded = s.enqueue("tx", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));
        long cancelled = s.enqueue("tx", new Args(2), EnqueueOptions.defaults().withMaxAttempts(3));
        long snoozed = s.enqueue("tx", new Args(3), EnqueueOptions.defaults().withMaxAttempts(3));
        s.start();

        assertThat(awaitRow(discarded, "discarded").errors()).extracting(JobRow.ErrorEntry::errorClass)
                .containsExactly("Discarded");
        assertThat(awaitRow(cancelled, "cancelled").errors()).extracting(JobRow.ErrorEntry::errorClass)
                .containsExactly("Cancelled");
        JobRow sn = awaitRow(snoozed, "completed");
        assertThat(sn.attempt()).isEqualTo(2);
        assertThat(sn.maxAttempts()).isEqualTo(4);
        assertThat(sideEffects(discarded)).isZero();
        assertThat(sideEffects(cancelled)).isZero();
        // The snoozed attempt's write was rolled back; the completing attempt's write kept.
        assertThat(sideEffects(snoozed)).isEqualTo(1);
        assertThat(queryLong("SELECT attempt FROM " + table("side_effects") + " WHERE job_id = ?", snoozed)).isEqualTo(2);
    }

    @Test
    void handlerThatBreaksItsOwnTransactionFailsTheAttempt() {
        // PostgreSQL aborts a transaction at its first failed statement; MySQL and MariaDB keep it
        // usable (a failed statement rolls back only itself), so there is nothing to break there.
        Assumptions.assumeTrue(backend() == TestBackend.POSTGRESQL, "only PostgreSQL aborts a transaction on error");
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("tx", Args.class), IMMEDIATE_RETRY,
                (job, tx) -> {
                    writeSideEffect(tx, job);
                    try (PreparedStatement ps = tx.prepareStatement("SELECT 1 / 0")) {
                        ps.execute();
                    } catch (java.sql.SQLException swallowed) {
                        // a handler that hides the error and claims success
                    }
                    return Outcome.complete();
                }));
        createSideEffects();
        long id = s.enqueue("tx", new Args(1), EnqueueOptions.defaults().withMaxAttempts(2));
        s.start();

        JobRow r = awaitRow(id, "discarded");
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("TransactionAborted", "TransactionAborted");
        assertThat(sideEffects(id)).isZero();
    }

    @Test
    void balanceTransfersKeepTheTotalAndApplyEachCompletedTransferExactlyOnce() {
        int accounts = 20;
        long initial = 1_000;
        int transfers = 500;
        Skipjack s = client(builder().queue("default", 8).transactionalHandler(JobKind.of("transfer", Transfer.class),
                IMMEDIATE_RETRY, (job, tx) -> {
                    maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    try {
                        return transfer(job, tx);
                    } finally {
                        inFlight.decrementAndGet();
                    }
                }));
        execute("CREATE TABLE " + table("accounts") + " (id int PRIMARY KEY, balance bigint NOT NULL)");
        for (int a = 1; a <= accounts; a++) {
            execute("INSERT INTO " + table("accounts") + " VALUES (" + a + ", " + initial + ")");
        }
        execute("CREATE TABLE " + table("audit") + " (job_id bigint NOT NULL, attempt int NOT NULL, worker varchar(255) NOT NULL)");

        Random random = new Random(7);
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < transfers; i++) {
            int from = 1 + random.nextInt(accounts);
            int to = 1 + (from + random.nextInt(accounts - 1)) % accounts;
            int roll = random.nextInt(10);
            int mode = roll == 0 ? 1 : roll == 1 ? 2 : 0; // ~10% fail once, ~10% always fail
            requests.add(JobRequest.of("transfer", new Transfer(from, to, 1 + random.nextInt(50), mode),
                    EnqueueOptions.defaults().withMaxAttempts(2)));
        }
        s.enqueueAll(requests);
        s.start();

        await("all transfers terminal", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state NOT IN ('completed', 'discarded', 'cancelled')") == 0);

        String jobs = jobsTable();
        // Money is neither created nor destroyed.
        assertThat(queryLong("SELECT sum(balance) FROM " + table("accounts"))).isEqualTo(accounts * initial);
        // Each account moved by exactly the completed transfers touching it (computed from the job rows).
        assertThat(queryLong("SELECT count(*) FROM " + table("accounts") + " a WHERE a.balance <> " + initial
                + " - coalesce((SELECT sum(" + backend().jsonInt("args", "amount") + ") FROM " + jobs
                + " WHERE state = 'completed' AND " + backend().jsonInt("args", "from") + " = a.id), 0)"
                + " + coalesce((SELECT sum(" + backend().jsonInt("args", "amount") + ") FROM " + jobs
                + " WHERE state = 'completed' AND " + backend().jsonInt("args", "to") + " = a.id), 0)")).isZero();
        // Outcomes follow the modes.
        assertThat(queryLong("SELECT count(*) FROM " + jobs + " WHERE " + backend().jsonInt("args", "mode") + " IN (0, 1) AND state <> 'completed'"))
                .isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobs + " WHERE " + backend().jsonInt("args", "mode") + " = 2 AND state <> 'discarded'"))
                .isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobs + " WHERE " + backend().jsonInt("args", "mode") + " = 1"
                + " AND NOT (attempt = 2 AND " + backend().jsonLength("errors") + " = 1)")).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobs + " WHERE " + backend().jsonInt("args", "mode") + " = 2"
                + " AND NOT (attempt = 2 AND " + backend().jsonLength("errors") + " = 2)")).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobs + " WHERE " + backend().jsonInt("args", "mode") + " = 0"
                + " AND NOT (attempt = 1 AND " + backend().jsonLength("errors") + " = 0)")).isZero();
        // Audit: exactly one row per completed job, from its last attempt; none for failed attempts.
        assertThat(queryLong("SELECT count(*) FROM " + jobs + " j WHERE j.state = 'completed' AND"
                + " (SELECT count(*) FROM " + table("audit") + " a WHERE a.job_id = j.id AND a.attempt = j.attempt) <> 1"))
                .isZero();
        assertThat(queryLong("SELECT count(*) FROM " + table("audit"))).isEqualTo(
                queryLong("SELECT count(*) FROM " + jobs + " WHERE state = 'completed'"));
        assertThat(queryLong("SELECT count(*) FROM " + jobs + " WHERE state = 'completed'")).isGreaterThan(300);
        assertThat(queryLong("SELECT count(*) FROM " + jobs + " WHERE state = 'discarded'")).isGreaterThan(10);
        if (backend() == TestBackend.SQLITE) {
            // A transactional job's transaction holds SQLite's only write lock from its claim to its
            // commit, so transactional jobs run one at a time (docs/backends.md).
            assertThat(maxInFlight.get()).as("transfers ran one at a time").isEqualTo(1);
        } else {
            assertThat(maxInFlight.get()).as("transfers ran concurrently").isGreaterThan(1);
        }
    }

    private Outcome transfer(Job<Transfer> job, Connection tx) throws Exception {
        Transfer t = job.args();
        // Lock the two accounts in id order so concurrent transfers cannot deadlock.
        int first = Math.min(t.from(), t.to());
        int second = Math.max(t.from(), t.to());
        adjust(tx, first, first == t.from() ? -t.amount() : t.amount());
        if (t.mode() == 2 || (t.mode() == 1 && job.attempt() == 1)) {
            throw new IllegalStateException("transfer " + job.id() + " failed half-way");
        }
        adjust(tx, second, second == t.from() ? -t.amount() : t.amount());
        try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + table("audit")
                + " (job_id, attempt, worker) VALUES (?, ?, ?)")) {
            ps.setLong(1, job.id());
            ps.setInt(2, job.attempt());
            ps.setString(3, job.workerId());
            ps.executeUpdate();
        }
        return Outcome.complete();
    }

    private void adjust(Connection tx, int account, int delta) throws Exception {
        try (PreparedStatement ps = tx.prepareStatement("UPDATE " + table("accounts") + " SET balance = balance + ? WHERE id = ?")) {
            ps.setInt(1, delta);
            ps.setInt(2, account);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("no account " + account);
            }
        }
    }
}
