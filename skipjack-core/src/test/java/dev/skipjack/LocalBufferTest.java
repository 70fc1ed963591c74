package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-15 with F-18: a fetcher claims short jobs ahead of its free slots into a local buffer; those
 * jobs are leased to it but not started, so a stop must hand them back at once, not leave them
 * running until their leases expire.
 */
class LocalBufferTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final int FAST_JOBS = 3_000;

    @Test
    void bufferedJobsAreHandedBackAtStopNotLeftToTheirLeases() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        // One slot: whatever else is running in the database is only buffered here.
        Skipjack worker = client(builder().queue("default", 1).lease(Duration.ofMinutes(10))
                .handler(JobKind.of("work", Args.class), job -> {
                    if (job.args().n() == FAST_JOBS) {
                        blocked.countDown();
                        Thread.sleep(60_000); // interrupted by stop
                    }
                    finished.incrementAndGet();
                    return Outcome.complete();
                }));
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i <= FAST_JOBS + 500; i++) {
            jobs.add(JobRequest.of("work", new Args(i)));
        }
        worker.enqueueAll(jobs);
        worker.start();
        assertThat(blocked.await(60, TimeUnit.SECONDS)).as("the blocking job started").isTrue();
        String running = "SELECT count(*) FROM " + jobsTable() + " WHERE state = 'running'";
        String completed = "SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'";
        // The one slot is blocked, so no more jobs finish; wait for the last acknowledgements, and
        // for the refill claim the blocking job's start asked for when it emptied the buffer (it
        // may still be in flight when the job starts).
        await("acknowledgements of the finished jobs, and a buffer beside the blocked job", Duration.ofSeconds(10),
                () -> queryLong(completed) == finished.get() && queryLong(running) > 1);
        long heldWhileBlocked = queryLong(running);

        worker.stop(Duration.ofMillis(300));

        assertThat(queryLong(running)).as("nothing left running for its 10-minute lease").isZero();
        long handedBack = queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'available' AND attempt = 1 AND errors->0->>'class' = 'HandedBack'");
        // A claim in flight when the count above was read can add to the buffer before stop, so the
        // exact set is every job that was claimed and did not complete.
        long claimedNotCompleted = queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE attempt = 1 AND state <> 'completed'");
        assertThat(handedBack).as("the blocked job and the buffered ones, handed back")
                .isEqualTo(claimedNotCompleted).isGreaterThanOrEqualTo(heldWhileBlocked);
        assertThat(queryLong(completed)).isEqualTo(finished.get());
    }

    @Test
    void bufferedJobsAreHandedBackWhenTheRunningOnesFinishInTime() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        Skipjack worker = client(builder().queue("default", 1).lease(Duration.ofMinutes(10))
                .handler(JobKind.of("work", Args.class), job -> {
                    if (job.args().n() == FAST_JOBS) {
                        blocked.countDown();
                        release.await();
                    }
                    finished.incrementAndGet();
                    return Outcome.complete();
                }));
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i <= FAST_JOBS + 500; i++) {
            jobs.add(JobRequest.of("work", new Args(i)));
        }
        worker.enqueueAll(jobs);
        worker.start();
        assertThat(blocked.await(60, TimeUnit.SECONDS)).as("the blocking job started").isTrue();
        String running = "SELECT count(*) FROM " + jobsTable() + " WHERE state = 'running'";
        String completed = "SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'";
        await("acknowledgements of the finished jobs, and a buffer beside the blocked job", Duration.ofSeconds(10),
                () -> queryLong(completed) == finished.get() && queryLong(running) > 1);
        long heldWhileBlocked = queryLong(running);

        Thread stopper = new Thread(() -> worker.stop(Duration.ofSeconds(30)), "test-stopper");
        stopper.start();
        await("the fetcher to stop", Duration.ofSeconds(10), () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("skipjack-fetcher-default") && t.isAlive()));
        release.countDown(); // the running job finishes well within the deadline: nothing is left running
        stopper.join(30_000);

        assertThat(queryLong(running)).as("nothing left running for its 10-minute lease").isZero();
        long handedBack = queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'available' AND attempt = 1 AND errors->0->>'class' = 'HandedBack'");
        // As above: a claim in flight at the count may have buffered more; all of them come back.
        long claimedNotCompleted = queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE attempt = 1 AND state <> 'completed'");
        assertThat(handedBack).as("the buffered jobs, handed back")
                .isEqualTo(claimedNotCompleted).isGreaterThanOrEqualTo(heldWhileBlocked - 1);
        assertThat(queryLong(completed)).isEqualTo(finished.get());
    }
}
