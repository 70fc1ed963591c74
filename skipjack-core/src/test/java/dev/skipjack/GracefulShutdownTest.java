package dev.skipjack;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-18: stop claiming, let running jobs finish until the deadline, hand the rest back at once —
 * not after their lease expires — so another worker can run them right away.
 */
class GracefulShutdownTest extends DatabaseTest {

    /** {@code finish}: the handler waits for the test to let it finish; otherwise it waits forever. */
    record Args(int n, boolean finish) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String QUEUE = "drain-test";

    private final CountDownLatch finishGate = new CountDownLatch(1);
    private final CountDownLatch neverOpens = new CountDownLatch(1);
    private final AtomicInteger interrupted = new AtomicInteger();

    @AfterEach
    void openGates() {
        finishGate.countDown();
        neverOpens.countDown();
    }

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    private JobHandler<Args> blockingHandler(CountDownLatch started) {
        return job -> {
            started.countDown();
            try {
                (job.args().finish() ? finishGate : neverOpens).await();
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            }
            return Outcome.complete();
        };
    }

    private static boolean fetcherAlive(String queue) {
        return Thread.getAllStackTraces().keySet().stream()
                // A queue's fetcher runs on a thread named skipjack-fetcher-<queue>.
                .anyMatch(t -> t.getName().equals("skipjack-fetcher-" + queue) && t.isAlive());
    }

    /**
     * A stop called from a listener's callback runs on a maintenance thread, and the stop's own
     * shutdown of the maintenance scheduler interrupts that thread: the rest of the stop must not
     * take that interrupt for its caller's, cut its wait short and hand the running job back.
     */
    @Test
    void aStopCalledFromAListenerCallbackStillLetsTheRunningJobFinish() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Skipjack> self = new AtomicReference<>();
        AtomicReference<Thread> stopping = new AtomicReference<>();
        CountDownLatch stopReturned = new CountDownLatch(1);
        Skipjack worker = client(builder().queue(QUEUE, 1).rescueInterval(Duration.ofMillis(100))
                .handler(JobKind.of("block", Args.class), blockingHandler(started))
                .listener(new SkipjackListener() {
                    @Override
                    public void leasesRescued(int count) {
                        if (stopping.compareAndSet(null, Thread.currentThread())) {
                            self.get().stop(Duration.ofSeconds(20));
                            stopReturned.countDown();
                        }
                    }
                }));
        self.set(worker);
        long running = worker.enqueue("block", new Args(1, true), EnqueueOptions.defaults().withQueue(QUEUE));
        worker.start();
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the job started").isTrue();
        // A job a dead worker left running, its lease over, in a queue this worker does not serve:
        // the leader's rescue round hands it back and tells the listener, which stops the worker.
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt, max_attempts, claimed_by,"
                + " attempted_at, lease_until) VALUES ('elsewhere', 'block', '{\"n\": 2, \"finish\": true}', 'running',"
                + " 1, 3, 'gone', " + nowPlus(Duration.ofSeconds(-20)) + ", " + nowPlus(Duration.ofSeconds(-10)) + ")");
        await("the stop waiting for the running job, or over", WAIT, () -> stopReturned.getCount() == 0
                || (stopping.get() != null && inStack(stopping.get(), "awaitIdle")));
        assertThat(stopReturned.getCount()).as("the stop, called on a maintenance thread, waiting for the running job")
                .isEqualTo(1);
        assertThat(stopping.get().getName()).startsWith("skipjack-maintenance");
        finishGate.countDown();
        assertThat(stopReturned.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the stop returned").isTrue();
        assertThat(row(running).state()).as("the job that was running").isEqualTo("completed");
        assertThat(interrupted.get()).as("handlers interrupted").isZero();
    }

    @Test
    void unfinishedJobsAreHandedBackAtOnceAndFinishedOnesCompleted() throws Exception {
        CountDownLatch started = new CountDownLatch(4);
        Skipjack a = client(builder().workerId("worker-a").queue(QUEUE, 6)
                .handler(JobKind.of("block", Args.class), blockingHandler(started)));
        EnqueueOptions opts = EnqueueOptions.defaults().withQueue(QUEUE).withMaxAttempts(3);
        List<Long> finishing = new ArrayList<>();
        List<Long> hanging = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            finishing.add(a.enqueue("block", new Args(i, true), opts));
            hanging.add(a.enqueue("block", new Args(10 + i, false), opts));
        }
        a.start();
        assertThat(started.await(10, TimeUnit.SECONDS)).as("all four handlers started").isTrue();

        AtomicReference<Duration> stopTook = new AtomicReference<>();
        Thread stopper = new Thread(() -> {
            long t0 = System.nanoTime();
            a.stop(Duration.ofMillis(500));
            stopTook.set(Duration.ofNanos(System.nanoTime() - t0));
        }, "test-stopper");
        stopper.start();
        // Claiming has stopped once the fetcher thread is gone; the running jobs are still running.
        await("fetcher stopped", WAIT, () -> !fetcherAlive(QUEUE));
        List<Long> late = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            late.add(a.enqueue("block", new Args(20 + i, true), opts));
        }
        finishGate.countDown(); // two jobs finish during the drain, well before the deadline
        stopper.join(10_000);
        assertThat(stopper.isAlive()).as("stop returned").isFalse();
        assertThat(stopTook.get()).isBetween(Duration.ofMillis(450), Duration.ofMillis(500 + 3_000));

        // Right after stop returned — no waiting for a lease (15 s) to expire:
        for (long id : finishing) {
            JobRow r = row(id);
            assertThat(r.state()).as("finished job %d", id).isEqualTo("completed");
            assertThat(r.attempt()).isEqualTo(1);
            assertThat(r.maxAttempts()).isEqualTo(3);
            assertThat(r.errors()).isEmpty();
        }
        for (long id : hanging) {
            JobRow r = row(id);
            assertThat(r.state()).as("unfinished job %d", id).isEqualTo("available");
            assertThat(r.leaseUntil()).isNull();
            assertThat(r.attempt()).isEqualTo(1);
            assertThat(r.maxAttempts()).as("attempt given back").isEqualTo(4);
            assertThat(r.errors()).hasSize(1);
            assertThat(r.errors().get(0).errorClass()).isEqualTo("HandedBack");
            assertThat(r.errors().get(0).attempt()).isEqualTo(1);
            assertThat(r.errors().get(0).worker()).isEqualTo("worker-a");
        }
        for (long id : late) {
            JobRow r = row(id);
            assertThat(r.state()).as("job enqueued during the drain %d", id).isEqualTo("available");
            assertThat(r.attempt()).isZero();
            assertThat(r.claimedBy()).isNull();
        }
        // The stop interrupts the job threads and does not wait for them to count it.
        await("unfinished handlers interrupted", WAIT, () -> interrupted.get() == 2);

        // Another worker picks the handed-back jobs up at once and completes them.
        Set<Long> ranOnB = ConcurrentHashMap.newKeySet();
        AtomicInteger runsOnB = new AtomicInteger();
        Skipjack b = client(builder().workerId("worker-b").queue(QUEUE, 4).handler(JobKind.of("block", Args.class), job -> {
            ranOnB.add(job.id());
            runsOnB.incrementAndGet();
            return Outcome.complete();
        }));
        b.start();
        List<Long> all = new ArrayList<>(finishing);
        all.addAll(hanging);
        all.addAll(late);
        await("every job completed", WAIT, () -> all.stream().allMatch(id -> row(id).state().equals("completed")));
        for (long id : hanging) {
            JobRow r = row(id);
            assertThat(r.attempt()).isEqualTo(2);
            assertThat(r.claimedBy()).isEqualTo("worker-b");
            assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("HandedBack");
        }
        for (long id : finishing) {
            assertThat(row(id).claimedBy()).isEqualTo("worker-a");
            assertThat(row(id).attempt()).isEqualTo(1);
        }
        List<Long> expectedOnB = new ArrayList<>(hanging);
        expectedOnB.addAll(late);
        assertThat(ranOnB).containsExactlyInAnyOrderElementsOf(expectedOnB);
        assertThat(runsOnB.get()).isEqualTo(expectedOnB.size());
    }

    @Test
    void jobsFinishingBeforeTheDeadlineAreCompletedAndStopDoesNotWaitLonger() throws Exception {
        CountDownLatch started = new CountDownLatch(3);
        Skipjack s = client(builder().queue(QUEUE, 3).handler(JobKind.of("block", Args.class), blockingHandler(started)));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(s.enqueue("block", new Args(i, true), EnqueueOptions.defaults().withQueue(QUEUE)));
        }
        s.start();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        Thread opener = new Thread(() -> {
            await("fetcher stopped", WAIT, () -> !fetcherAlive(QUEUE));
            finishGate.countDown();
        });
        opener.start();
        long t0 = System.nanoTime();
        s.stop(Duration.ofSeconds(10));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        opener.join(10_000);

        // Returned as soon as the jobs were done, not at the 10 s deadline, with their completions written.
        assertThat(took).isLessThan(Duration.ofSeconds(5));
        for (long id : ids) {
            JobRow r = row(id);
            assertThat(r.state()).isEqualTo("completed");
            assertThat(r.errors()).isEmpty();
        }
        assertThat(interrupted.get()).isZero();
    }

    @Test
    void stopWithNothingRunningReturnsPromptly() {
        Skipjack s = client(builder().queue(QUEUE, 4).handler(JobKind.of("block", Args.class), job -> Outcome.complete()));
        s.start();
        long id = s.enqueue("block", new Args(1, true), EnqueueOptions.defaults().withQueue(QUEUE));
        await("job completed", WAIT, () -> row(id).state().equals("completed"));

        long t0 = System.nanoTime();
        s.stop(Duration.ofSeconds(10));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void nothingIsClaimedAfterStop() {
        AtomicInteger runs = new AtomicInteger();
        Skipjack s = client(builder().queue(QUEUE, 4).handler(JobKind.of("block", Args.class), job -> {
            runs.incrementAndGet();
            return Outcome.complete();
        }));
        s.start();
        long first = s.enqueue("block", new Args(1, true), EnqueueOptions.defaults().withQueue(QUEUE));
        await("first job completed", WAIT, () -> row(first).state().equals("completed"));
        s.stop(Duration.ofSeconds(5));

        List<Long> after = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            after.add(s.enqueue("block", new Args(i, true), EnqueueOptions.defaults().withQueue(QUEUE)));
        }
        // Ten poll intervals and more than two promote intervals: a live fetcher would have claimed them.
        JobRow.holdsFor("jobs enqueued after stop stay available and unclaimed", Duration.ofMillis(600),
                () -> after.stream().map(this::row).allMatch(r -> r.state().equals("available") && r.attempt() == 0));
        assertThat(runs.get()).isEqualTo(1);
        s.stop(Duration.ofSeconds(1)); // stopping twice is harmless
    }

    @Test
    void transactionalJobRunningAtStopIsRolledBackAndAvailableAtOnce() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Skipjack s = client(builder().queue(QUEUE, 2).transactionalHandler(JobKind.of("block-tx", Args.class), (job, tx) -> {
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO \"" + schema + "\".side_effects VALUES (?)")) {
                ps.setLong(1, job.id());
                ps.executeUpdate();
            }
            started.countDown();
            try {
                neverOpens.await();
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            }
            return Outcome.complete();
        }));
        execute("CREATE TABLE \"" + schema + "\".side_effects (job_id bigint)");
        long id = s.enqueue("block-tx", new Args(1, false), EnqueueOptions.defaults().withQueue(QUEUE).withMaxAttempts(3));
        s.start();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        long t0 = System.nanoTime();
        s.stop(Duration.ofMillis(500));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(500 + 3_000));

        JobRow r = row(id);
        assertThat(r.state()).isEqualTo("available");
        assertThat(r.attempt()).as("claim rolled back").isZero();
        assertThat(r.maxAttempts()).isEqualTo(3);
        assertThat(r.claimedBy()).isNull();
        assertThat(r.errors()).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".side_effects")).isZero();
        assertThat(interrupted.get()).isEqualTo(1);
    }

    /**
     * A stop's own database writes (giving maintenance leadership up, removing the node's row) are
     * best effort: with the pool drained, or the database gone before the application (a JVM
     * shutdown hook after the database's own), each getConnection would wait the pool's whole
     * connection timeout. Seen: a Spring test JVM on Temurin 25 kept alive 30 s at exit.
     */
    @Test
    void stopDoesNotWaitForAPoolThatHasNoConnectionToGive() throws Exception {
        int poolSize = 12;
        List<Connection> held = Collections.synchronizedList(new ArrayList<>());
        HikariDataSource pool = backend().newDataSource(poolSize); // connection timeout 30 s
        try {
            CountDownLatch ran = new CountDownLatch(1);
            Skipjack s = Skipjack.builder(pool).schema(schema).pollInterval(Duration.ofMillis(50))
                    .queue(QUEUE, 2).handler(JobKind.of("block", Args.class), job -> {
                        ran.countDown();
                        return Outcome.complete();
                    }).build();
            s.migrate();
            s.enqueue("block", new Args(1, true), EnqueueOptions.defaults().withQueue(QUEUE));
            s.start();
            assertThat(ran.await(15, TimeUnit.SECONDS)).as("the node ran a job").isTrue();
            await("the node leads maintenance", WAIT, () -> queryLong("SELECT count(*) FROM " + table("skipjack_leader")) > 0);
            // Drain the pool: a taker per connection, each keeping what it gets; the node's own
            // connections go to them as it gives them back.
            for (int i = 0; i < poolSize; i++) {
                Thread taker = new Thread(() -> {
                    try {
                        held.add(pool.getConnection());
                    } catch (SQLException e) {
                        // Timed out behind the others, or the pool closed at the end of the test.
                    }
                });
                taker.setDaemon(true);
                taker.start();
            }
            await("a drained pool", WAIT, () -> pool.getHikariPoolMXBean().getTotalConnections() == poolSize
                    && pool.getHikariPoolMXBean().getIdleConnections() == 0
                    && pool.getHikariPoolMXBean().getThreadsAwaitingConnection() > 0);

            long t0 = System.nanoTime();
            s.stop(Duration.ofMillis(500));
            assertThat(Duration.ofNanos(System.nanoTime() - t0))
                    .as("stop with a drained pool whose connection timeout is 30 s")
                    .isLessThan(Duration.ofSeconds(15));
        } finally {
            synchronized (held) {
                for (Connection c : held) {
                    c.close();
                }
            }
            pool.close();
        }
    }
}
