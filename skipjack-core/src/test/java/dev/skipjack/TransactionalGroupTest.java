package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * F-4 for jobs run together: transactional jobs whose handlers leave their connection alone share
 * one transaction (TransactionalRunner's groups). Each keeps its own outcome, and the group commits
 * or rolls back as one: a worker that dies in the middle of a group leaves every job of it
 * available again at once, attempt unchanged, including the jobs whose handlers already returned.
 * Handlers that write are grouped as well; two groups whose handlers deadlock cost no attempt: the
 * group the database gives up is rolled back whole, and its jobs run again, one per transaction.
 * Nor does a commit the database refuses for one writer's work (a deferred constraint): only that
 * job, run alone next, has the failure counted.
 */
class TransactionalGroupTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final JobKind<Args> QUIET = JobKind.of("quiet", Args.class);
    /** Enough jobs in a row without a touch of the connection for the kind to be grouped, and for groups to grow. */
    private static final int WARM_UP = 250;

    private final CountDownLatch gate = new CountDownLatch(1);

    @AfterEach
    void openGate() {
        gate.countDown();
    }

    private List<Long> enqueue(Skipjack s, int from, int count) {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            requests.add(JobRequest.of(QUIET, new Args(from + i)));
        }
        return s.enqueueAll(requests);
    }

    private void awaitAllTerminal() {
        await("every job terminal", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state NOT IN ('completed', 'discarded', 'cancelled')") == 0);
    }

    /** Runs the warm-up (so that groups have grown), then {@code count} jobs numbered from 1,000; returns their ids once all are terminal. */
    private List<Long> runAfterWarmUp(Skipjack s, int count) {
        enqueue(s, 0, WARM_UP);
        s.start();
        awaitAllTerminal();
        List<Long> ids = enqueue(s, 1_000, count);
        awaitAllTerminal();
        return ids;
    }

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    @Test
    void aWorkerThatDiesInTheMiddleOfAGroupLeavesEveryJobOfItAvailableWithItsAttemptUnchanged() {
        int blocking = 1_010;
        CountDownLatch blocked = new CountDownLatch(1);
        Set<Integer> ran = ConcurrentHashMap.newKeySet();
        // One job thread, so the jobs after the warm-up are claimed as one group, in order.
        Skipjack s = client(builder().queue("default", 1).transactionalHandler(QUIET, (job, tx) -> {
            ran.add(job.args().n());
            if (job.args().n() == blocking) {
                blocked.countDown();
                // Ignores the interrupt, like a hung handler: shutdown must abort the connection.
                while (true) {
                    try {
                        gate.await();
                        break;
                    } catch (InterruptedException ignored) {
                        // keep hanging
                    }
                }
            }
            return Outcome.complete();
        }));
        enqueue(s, 0, WARM_UP);
        s.start();
        awaitAllTerminal();

        List<Long> ids = enqueue(s, 1_000, 30);
        await("the blocking job to start", WAIT, () -> blocked.getCount() == 0);
        // The handlers of the jobs claimed before it returned complete, in its transaction.
        assertThat(ran).contains(1_000, 1_001, 1_009);
        s.stop(Duration.ofMillis(200)); // the handler hangs on: its connection is aborted, as if the worker died

        await("the aborted transaction to roll back", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'available'") == 30);
        for (long id : ids) {
            JobRow r = row(id);
            assertThat(r.state()).as("job %d", id).isEqualTo("available");
            assertThat(r.attempt()).as("job %d attempt", id).isZero();
            assertThat(r.errors()).as("job %d errors", id).isEmpty();
        }
    }

    @Test
    void eachJobOfAGroupKeepsItsOwnOutcome() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(QUIET,
                KindOptions.defaults().withMaxAttempts(1), (job, tx) -> {
                    int n = job.args().n();
                    if (n >= 1_000 && n % 3 == 0) {
                        throw new IllegalStateException("job " + n + " fails");
                    }
                    return n >= 1_000 && n % 3 == 1 ? Outcome.cancel("job " + n + " cancels") : Outcome.complete();
                }));
        List<Long> ids = runAfterWarmUp(s, 300);
        for (int i = 0; i < ids.size(); i++) {
            int n = 1_000 + i;
            JobRow r = row(ids.get(i));
            String expected = n % 3 == 0 ? "discarded" : n % 3 == 1 ? "cancelled" : "completed";
            assertThat(r.state()).as("job n=%d", n).isEqualTo(expected);
            assertThat(r.attempt()).as("job n=%d attempt", n).isEqualTo(1);
            assertThat(r.errors()).as("job n=%d errors", n).hasSize(n % 3 == 2 ? 0 : 1);
        }
    }

    @Test
    void aGroupedHandlerThatHidesAFailedStatementFailsOnlyItsOwnJob() {
        // PostgreSQL aborts a transaction at its first failed statement; MySQL, MariaDB and SQLite
        // fail only the statement, so there is nothing to break there.
        assumeTrue(backend() == TestBackend.POSTGRESQL, "only PostgreSQL aborts a transaction on error");
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(QUIET,
                KindOptions.defaults().withMaxAttempts(1), (job, tx) -> {
                    int n = job.args().n();
                    if (n < 1_000) {
                        return Outcome.complete();
                    }
                    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + table("ledger") + " VALUES (?, ?)")) {
                        ps.setLong(1, job.id());
                        ps.setInt(2, job.attempt());
                        ps.executeUpdate();
                    }
                    if (n % 4 == 0) {
                        try (PreparedStatement ps = tx.prepareStatement("SELECT 1 / 0")) {
                            ps.execute();
                        } catch (java.sql.SQLException swallowed) {
                            // a handler that hides the error and claims success
                        }
                    }
                    return Outcome.complete();
                }));
        execute("CREATE TABLE " + table("ledger") + " (job_id bigint NOT NULL, attempt int NOT NULL)");
        List<Long> ids = runAfterWarmUp(s, 200);
        assertOnlyFailedWritersDiscarded(ids, "ledger", n -> n % 4 == 0, "TransactionAborted");
    }

    /**
     * Each of {@code ids} (numbered from 1,000) ran one attempt: those {@code failed} says are
     * discarded with one {@code errorClass} error and none of their rows in {@code table}, the
     * others completed without error and kept their one row.
     */
    private void assertOnlyFailedWritersDiscarded(List<Long> ids, String table, java.util.function.IntPredicate failed,
                                                  String errorClass) {
        for (int i = 0; i < ids.size(); i++) {
            int n = 1_000 + i;
            long id = ids.get(i);
            JobRow r = row(id);
            long kept = queryLong("SELECT count(*) FROM " + table(table) + " WHERE job_id = " + id);
            assertThat(r.attempt()).as("job n=%d attempt", n).isEqualTo(1);
            if (failed.test(n)) {
                assertThat(r.state()).as("job n=%d", n).isEqualTo("discarded");
                assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).as("job n=%d", n)
                        .containsExactly(errorClass);
                assertThat(kept).as("job n=%d's writes", n).isZero();
            } else {
                assertThat(r.state()).as("job n=%d: another job's work failed its transaction", n).isEqualTo("completed");
                assertThat(r.errors()).as("job n=%d errors", n).isEmpty();
                assertThat(kept).as("job n=%d's writes", n).isEqualTo(1);
            }
        }
    }

    @Test
    void aCommitRefusedForOneWritersWorkCostsTheOtherJobsOfItsGroupNothing() {
        assumeTrue(backend() != TestBackend.MARIADB,
                "InnoDB checks every constraint at its statement: its commits have nothing to refuse");
        if (backend() == TestBackend.SQLITE) {
            // sqlite-jdbc enforces foreign keys only on connections that ask for it.
            com.zaxxer.hikari.HikariDataSource withForeignKeys = new com.zaxxer.hikari.HikariDataSource();
            withForeignKeys.setJdbcUrl(dataSource.getJdbcUrl() + "&foreign_keys=true");
            withForeignKeys.setMaximumPoolSize(8);
            dataSource.close();
            dataSource = withForeignKeys;
        }
        int breaking = 1_005;
        Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        // One job thread: after the warm-up the jobs are claimed in groups of 32, the breaking one in the first.
        Skipjack s = client(builder().queue("default", 1).transactionalHandler(QUIET,
                KindOptions.defaults().withMaxAttempts(1), (job, tx) -> {
                    int n = job.args().n();
                    if (n < 1_000) {
                        return Outcome.complete();
                    }
                    runs.computeIfAbsent(n, k -> new AtomicInteger()).incrementAndGet();
                    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + table("child") + " VALUES (?, ?)")) {
                        ps.setLong(1, job.id());
                        ps.setInt(2, n == breaking ? 2 : 1); // there is no parent 2
                        ps.executeUpdate();
                    }
                    return Outcome.complete();
                }));
        // SQLite's REFERENCES names a table of the child's own schema, unqualified.
        String parent = backend() == TestBackend.SQLITE ? "parent" : table("parent");
        execute("CREATE TABLE " + table("parent") + " (id int PRIMARY KEY)");
        execute("INSERT INTO " + table("parent") + " VALUES (1)");
        // Checked at COMMIT only: the statement that breaks it succeeds, the group's commit fails.
        execute("CREATE TABLE " + table("child") + " (job_id bigint NOT NULL, parent_id int NOT NULL REFERENCES "
                + parent + " (id) DEFERRABLE INITIALLY DEFERRED)");
        List<Long> ids = runAfterWarmUp(s, 40);

        assertOnlyFailedWritersDiscarded(ids, "child", n -> n == breaking, "CommitFailed");
        // The breaking job was claimed in a group: the case above was met, not avoided.
        assertThat(runs.get(breaking + 1).get()).as("a job grouped with the breaking one ran again after the refused commit")
                .isGreaterThan(1);
    }

    @Test
    void aJobThatAlwaysMeetsAConflictHasEveryFourthCountedAndEnds() {
        // The database's own code for a deadlock; thrown by the handler itself, so every run meets one.
        SQLException deadlock = switch (backend()) {
            case POSTGRESQL -> new SQLException("deadlock detected (thrown by the test)", "40P01");
            case SQLITE -> new SQLException("database is locked (thrown by the test)", null, 5);
            default -> new SQLException("Deadlock found when trying to get lock (thrown by the test)", "40001", 1213);
        };
        AtomicInteger runs = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 1).transactionalHandler(QUIET,
                KindOptions.defaults().withMaxAttempts(2).withRetryPolicy(RetryPolicy.fixed(Duration.ZERO)), (job, tx) -> {
                    runs.incrementAndGet();
                    tx.getMetaData(); // a use of the connection: its job has a savepoint, as a writer's
                    throw new IllegalStateException("the transfer failed", deadlock);
                }));
        long id = s.enqueue(QUIET, new Args(1));
        s.start();
        awaitAllTerminal();

        JobRow r = row(id);
        assertThat(r.state()).isEqualTo("discarded");
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("TransactionConflict", "TransactionConflict");
        // Three conflicts in a row uncounted, the fourth counted, for each of the two attempts.
        assertThat(runs.get()).isEqualTo(2 * 4);
    }

    /** A job of the deadlock test: adds one to {@code row} of the counters table; {@code row} 0 writes nothing. */
    record Step(int row, boolean meet) {
    }

    private static final JobKind<Step> STEP = JobKind.of("step", Step.class);

    @Test
    void twoGroupsWhoseHandlersDeadlockCostNoAttemptAndTheLoserRunsItsJobsAgainAlone() {
        assumeTrue(backend() != TestBackend.SQLITE,
                "SQLite runs one transaction at a time (its only write lock), so two groups cannot deadlock");
        // The first job of each group waits here for the other's, so both groups hold one row when
        // their second jobs ask for the other: a deadlock on every backend, whatever the timing.
        CyclicBarrier bothHoldOneRow = new CyclicBarrier(2);
        AtomicBoolean met = new AtomicBoolean();
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        // Two queues of one job thread each: each queue's runner claims its pair as one group.
        Skipjack s = client(builder().queue("a", 1).queue("b", 1).transactionalHandler(STEP, (job, tx) -> {
            Step step = job.args();
            if (step.row() == 0) {
                return Outcome.complete();
            }
            runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
            try (PreparedStatement ps = tx.prepareStatement("UPDATE " + table("counters") + " SET n = n + 1 WHERE id = ?")) {
                ps.setInt(1, step.row());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + table("ledger") + " VALUES (?, ?)")) {
                ps.setLong(1, job.id());
                ps.setInt(2, job.attempt());
                ps.executeUpdate();
            }
            if (step.meet() && !met.get()) {
                bothHoldOneRow.await(20, TimeUnit.SECONDS);
                met.set(true);
            }
            return Outcome.complete();
        }));
        execute("CREATE TABLE " + table("counters") + " (id int PRIMARY KEY, n int NOT NULL)");
        execute("INSERT INTO " + table("counters") + " VALUES (1, 0)");
        execute("INSERT INTO " + table("counters") + " VALUES (2, 0)");
        execute("CREATE TABLE " + table("ledger") + " (job_id bigint NOT NULL, attempt int NOT NULL)");
        // Quiet jobs first, so both queues' groups have grown past two.
        List<JobRequest> warmUp = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            warmUp.add(JobRequest.of(STEP, new Step(0, false), EnqueueOptions.defaults().withQueue("a")));
            warmUp.add(JobRequest.of(STEP, new Step(0, false), EnqueueOptions.defaults().withQueue("b")));
        }
        s.enqueueAll(warmUp);
        s.start();
        awaitAllTerminal();

        EnqueueOptions first = EnqueueOptions.defaults().withPriority(1);
        EnqueueOptions second = EnqueueOptions.defaults().withPriority(2);
        List<Long> ids = s.enqueueAll(List.of(
                JobRequest.of(STEP, new Step(1, true), first.withQueue("a")),
                JobRequest.of(STEP, new Step(2, false), second.withQueue("a")),
                JobRequest.of(STEP, new Step(2, true), first.withQueue("b")),
                JobRequest.of(STEP, new Step(1, false), second.withQueue("b"))));
        awaitAllTerminal();

        assertThat(met).as("the two groups' first jobs met while each held one row").isTrue();
        for (long id : ids) {
            JobRow r = row(id);
            assertThat(r.state()).as("job %d", id).isEqualTo("completed");
            assertThat(r.attempt()).as("job %d attempt: the deadlock is not the job's failure", id).isEqualTo(1);
            assertThat(r.errors()).as("job %d errors", id).isEmpty();
        }
        // The group the database gave up ran both its jobs twice; the other group's ran once.
        assertThat(ids.stream().mapToInt(id -> runs.get(id).get()).sum()).as("handler runs").isEqualTo(6);
        assertThat(runs.get(ids.get(0)).get()).as("the pairs' first jobs ran as often as their second jobs")
                .isEqualTo(runs.get(ids.get(1)).get());
        assertThat(runs.get(ids.get(2)).get()).isEqualTo(runs.get(ids.get(3)).get());
        // Only the committed runs' writes are kept: one each.
        assertThat(queryLong("SELECT count(*) FROM " + table("ledger"))).isEqualTo(4);
        assertThat(queryLong("SELECT count(*) FROM " + table("ledger") + " WHERE attempt <> 1")).isZero();
        assertThat(queryLong("SELECT sum(n) FROM " + table("counters"))).isEqualTo(4);
        assertThat(queryLong("SELECT n FROM " + table("counters") + " WHERE id = 1")).isEqualTo(2);
    }
}
