package dev.skipjack;

import dev.skipjack.internal.maintenance.LeaseRescuer;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-3 in one process: a job whose lease expired comes back with the attempt counted and a
 * "LeaseExpired" entry; a live lease, and a finished job, are never touched; a worker that lost
 * its lease stops its handler and its late outcome does not count.
 */
class LeaseRescueTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final CountDownLatch gate = new CountDownLatch(1);

    @AfterEach
    void openGate() {
        gate.countDown();
    }

    private SqlStatements sql() {
        return Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
    }

    private int rescueNow() {
        try {
            return new LeaseRescuer(dataSource, sql()).rescueAll();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    private JobRow awaitRow(long id, String state) {
        await("job " + id + " to be " + state, WAIT, () -> row(id).state().equals(state));
        return row(id);
    }

    /** A job as a worker that then died would have left it: running, attempt 1, its lease ending at {@code leaseSql}. */
    private long insertRunning(String kind, String claimedBy, String leaseSql, int maxAttempts) throws Exception {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + jobsTable()
                     + " (queue, kind, args, state, attempt, max_attempts, claimed_by, attempted_at, lease_until)"
                     + " VALUES ('default', ?, '{\"n\": 1}', 'running', 1, ?, ?, " + nowPlus(Duration.ofSeconds(-20)) + ", "
                     + leaseSql + ")", java.sql.Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, kind);
            ps.setInt(2, maxAttempts);
            ps.setString(3, claimedBy);
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void expiredLeaseOfADeadWorkerIsRescuedAndTheJobCompletedByALiveClient() throws Exception {
        Map<Long, List<Integer>> attemptsRun = new ConcurrentHashMap<>();
        Skipjack s = client(builder().workerId("live-worker").queue("default", 2).handler(JobKind.of("work", Args.class), job -> {
            attemptsRun.computeIfAbsent(job.id(), k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(job.attempt());
            return Outcome.complete();
        }));
        long id = insertRunning("work", "dead-worker", nowPlus(Duration.ofSeconds(-1)), 5);
        s.start();

        JobRow r = awaitRow(id, "completed");
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.claimedBy()).isEqualTo("live-worker");
        assertThat(r.leaseUntil()).isNull();
        assertThat(r.errors()).hasSize(1);
        JobRow.ErrorEntry e = r.errors().get(0);
        assertThat(e.errorClass()).isEqualTo("LeaseExpired");
        assertThat(e.attempt()).isEqualTo(1);
        assertThat(e.worker()).isEqualTo("dead-worker");
        assertThat(e.message()).contains("dead-worker");
        assertThat(attemptsRun).containsOnlyKeys(id);
        assertThat(attemptsRun.get(id)).containsExactly(2);
    }

    @Test
    void expiredLeaseOnTheLastAttemptIsDiscarded() throws Exception {
        client(builder().kind(JobKind.of("work", Args.class)));
        long id = insertRunning("work", "dead-worker", nowPlus(Duration.ofSeconds(-1)), 1);

        assertThat(rescueNow()).isEqualTo(1);
        JobRow r = row(id);
        assertThat(r.state()).isEqualTo("discarded");
        assertThat(r.finishedAt()).isNotNull();
        assertThat(r.leaseUntil()).isNull();
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("LeaseExpired");
        assertThat(rescueNow()).as("rescuing again changes nothing").isZero();
        assertThat(row(id)).isEqualTo(r);
    }

    @Test
    void runningJobWithAnUnexpiredLeaseIsNotTouched() throws Exception {
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("work", Args.class), job -> Outcome.complete()));
        long live = insertRunning("work", "busy-worker", nowPlus(Duration.ofHours(1)), 5);
        long dead = insertRunning("work", "dead-worker", nowPlus(Duration.ofSeconds(-1)), 5);
        JobRow before = row(live);
        s.start();

        // The rescuer ran (it returned the dead one), and it runs again below, many times.
        awaitRow(dead, "completed");
        for (int i = 0; i < 20; i++) {
            rescueNow();
        }
        assertThat(row(live)).isEqualTo(before);
        assertThat(before.state()).isEqualTo("running");
        assertThat(before.errors()).isEmpty();
    }

    @Test
    void workerThatLostItsLeaseStopsItsHandlerAndItsOutcomeDoesNotCount() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        List<Integer> attemptsRun = new java.util.concurrent.CopyOnWriteArrayList<>();
        Skipjack s = client(builder().workerId("stalling-worker").lease(Duration.ofSeconds(1)).queue("default", 1)
                .handler(JobKind.of("work", Args.class), job -> {
                    attemptsRun.add(job.attempt());
                    if (job.attempt() > 1) {
                        return Outcome.complete();
                    }
                    started.countDown();
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                    return Outcome.complete();
                }));
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));
        s.start();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        // The worker stalls past its lease and the job is rescued.
        expireAndRescue(id);
        // The heartbeat finds it no longer holds attempt 1 and interrupts that handler.
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("stale handler interrupted").isTrue();

        JobRow done = awaitRow(id, "completed");
        assertThat(done.attempt()).isEqualTo(2);
        // The stale execution's failure (it was interrupted) was never recorded: only the rescue is.
        assertThat(done.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("LeaseExpired");
        assertThat(done.errors().get(0).attempt()).isEqualTo(1);
        assertThat(attemptsRun).containsExactly(1, 2);
    }

    @Test
    void staleHandlerIsInterruptedEvenWhenThisWorkerClaimedTheJobBackFirst() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        Map<Integer, CountDownLatch> startedAttempt = Map.of(1, new CountDownLatch(1), 2, new CountDownLatch(1));
        // Two slots: the rescued job can be claimed back by this same worker while its stale attempt still runs.
        Skipjack s = client(builder().workerId("stalling-worker").lease(Duration.ofSeconds(1)).queue("default", 2)
                .handler(JobKind.of("work", Args.class), job -> {
                    startedAttempt.get(job.attempt()).countDown();
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        if (job.attempt() == 1) {
                            interrupted.countDown();
                        }
                        throw e;
                    }
                    return Outcome.complete();
                }));
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));
        s.start();
        assertThat(startedAttempt.get(1).await(10, TimeUnit.SECONDS)).isTrue();

        expireAndRescue(id);
        assertThat(startedAttempt.get(2).await(10, TimeUnit.SECONDS)).as("attempt 2 claimed by the same worker").isTrue();
        // Attempt 1 lost its job: the heartbeat must stop it, although the same worker now holds attempt 2.
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("stale attempt 1 interrupted").isTrue();
        JobRow r = row(id);
        assertThat(r.state()).isEqualTo("running");
        assertThat(r.attempt()).isEqualTo(2);

        // Attempt 2 still holds a live lease: the heartbeat keeps extending it past the 1 s lease.
        Instant firstLease = r.leaseUntil();
        await("attempt 2's lease extended", WAIT, () -> row(id).leaseUntil().isAfter(firstLease.plusMillis(500)));
        gate.countDown();
        JobRow done = awaitRow(id, "completed");
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("LeaseExpired");
    }

    private void expireAndRescue(long id) throws Exception {
        // Expire the lease and rescue in one transaction, so no heartbeat slips in between.
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + jobsTable()
                    + " SET lease_until = " + nowPlus(Duration.ofSeconds(-1)) + " WHERE id = ?")) {
                ps.setLong(1, id);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            SqlStatements sql = sql();
            assertThat(sql.dialect().updateReturning(c, sql, "rescue_expired_leases", Params.of().integer(100), Params.of()))
                    .extracting(row -> row.getLong(1)).containsExactly(id);
            c.commit();
        }
    }

    @Test
    void handlerWhoseJobWasTakenOverIsInterruptedAndWritesNothing() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Skipjack s = client(builder().workerId("original").lease(Duration.ofSeconds(1)).queue("default", 1)
                .handler(JobKind.of("work", Args.class), job -> {
                    started.countDown();
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                    return Outcome.complete();
                }));
        long id = s.enqueue("work", new Args(1));
        s.start();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        execute("UPDATE " + jobsTable() + " SET claimed_by = 'someone-else', lease_until = " + nowPlus(Duration.ofHours(1))
                + " WHERE id = " + id);
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("handler interrupted").isTrue();
        JobRow.holdsFor("the job stays with its new owner, untouched", Duration.ofMillis(500), () -> {
            JobRow r = row(id);
            return r.state().equals("running") && r.claimedBy().equals("someone-else") && r.errors().isEmpty()
                    && r.attempt() == 1;
        });
    }

    @Test
    void rescuerNeverMovesAJobThatFinishedUnderAShortLease() throws Exception {
        int jobs = 300;
        // 2 s, not 1: the heartbeat (every third of the lease) must win SQLite's one write lock from
        // a rescuer hammering it in a loop; on a loaded CI machine three 333 ms chances were once
        // not enough, and a job whose lease really ran out is rightly rescued.
        Skipjack s = client(builder().lease(Duration.ofSeconds(2)).rescueInterval(Duration.ofMillis(100))
                .queue("default", 16).handler(JobKind.of("work", Args.class), job -> {
                    // Most jobs are quick; some outlive the 2 s lease and rely on the heartbeat.
                    long workMillis = job.args().n() % 15 == 0 ? 2_500 : job.args().n() % 20;
                    Thread.sleep(workMillis); // the job's work, not synchronization
                    audit(job.id(), job.attempt());
                    return Outcome.complete();
                }));
        execute("CREATE TABLE " + table("audit") + " (job_id bigint NOT NULL, attempt int NOT NULL)");
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of("work", new Args(i)));
        }
        s.enqueueAll(requests);

        AtomicBoolean done = new AtomicBoolean();
        AtomicLong rescued = new AtomicLong();
        AtomicInteger rescueRuns = new AtomicInteger();
        Thread hammer = new Thread(() -> {
            while (!done.get()) {
                rescued.addAndGet(rescueNow());
                rescueRuns.incrementAndGet();
            }
        }, "test-rescue-hammer");
        hammer.start();
        Instant t0 = Instant.now();
        s.start();
        try {
            await("all completed", Duration.ofSeconds(60),
                    () -> queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'") == jobs);
        } finally {
            done.set(true);
            hammer.join(10_000);
        }

        assertThat(rescueRuns.get()).as("rescue passes while jobs ran (%s)", Duration.between(t0, Instant.now()))
                .isGreaterThan(20);
        assertThat(rescued.get()).as("jobs the hammering rescuer moved").isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE " + backend().jsonLength("errors") + " > 0")).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE attempt <> 1")).isZero();
        // Every job ran exactly once, according to the handlers' own audit.
        assertThat(queryLong("SELECT count(*) FROM " + table("audit"))).isEqualTo(jobs);
        assertThat(queryLong("SELECT count(DISTINCT job_id) FROM " + table("audit"))).isEqualTo(jobs);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " j WHERE NOT EXISTS (SELECT 1 FROM " + table("audit")
                + " a WHERE a.job_id = j.id)")).isZero();
    }

    private void audit(long jobId, int attempt) throws Exception {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + table("audit") + " VALUES (?, ?)")) {
            ps.setLong(1, jobId);
            ps.setInt(2, attempt);
            ps.executeUpdate();
        }
    }
}
