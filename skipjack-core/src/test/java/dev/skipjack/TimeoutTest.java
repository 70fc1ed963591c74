package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-9: a handler running past its kind's timeout is interrupted and its attempt fails with
 * "JobTimeout"; one that ignores the interrupt does not keep its job; and a hung handler never
 * keeps {@code stop} from returning.
 */
class TimeoutTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    /** Released at the end of every test so that hung handlers end. */
    private volatile boolean released;
    private final AtomicInteger hung = new AtomicInteger();
    private final AtomicInteger interruptsIgnored = new AtomicInteger();

    @AfterEach
    void releaseHungHandlers() {
        released = true;
    }

    /** A handler body that ignores interrupts until the test releases it. */
    private void hangIgnoringInterrupts() {
        hung.incrementAndGet();
        try {
            while (!released) {
                if (Thread.interrupted()) {
                    interruptsIgnored.incrementAndGet();
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
        } finally {
            hung.decrementAndGet();
        }
    }

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    private JobRow awaitRow(long id, String state) {
        await("job " + id + " to be " + state, WAIT, () -> row(id).state().equals(state));
        return row(id);
    }

    @Test
    void sleepingHandlerIsInterruptedAndFailsWithJobTimeout() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("slow", Args.class),
                KindOptions.defaults().withTimeout(Duration.ofMillis(500)), job -> {
                    try {
                        Thread.sleep(60_000); // the work that takes too long
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                    return Outcome.complete();
                }));
        s.start();
        long id = s.enqueue("slow", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));

        JobRow r = awaitRow(id, "discarded");
        assertThat(interrupted.await(5, TimeUnit.SECONDS)).as("handler interrupted").isTrue();
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.errors()).hasSize(1);
        JobRow.ErrorEntry e = r.errors().get(0);
        assertThat(e.errorClass()).isEqualTo("JobTimeout");
        assertThat(e.attempt()).isEqualTo(1);
        // Failed after the timeout, long before the handler's 60 s were up (database clock).
        Duration ranFor = Duration.between(r.attemptedAt(), e.at());
        assertThat(ranFor).isBetween(Duration.ofMillis(500), Duration.ofSeconds(10));
    }

    @Test
    void timedOutJobIsRetriedWithTheNextAttempt() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("slow", Args.class),
                KindOptions.defaults().withTimeout(Duration.ofMillis(300)).withRetryPolicy(RetryPolicy.fixed(Duration.ZERO)),
                job -> {
                    calls.incrementAndGet();
                    if (job.attempt() == 1) {
                        Thread.sleep(60_000);
                    }
                    return Outcome.complete();
                }));
        s.start();
        long id = s.enqueue("slow", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));

        JobRow r = awaitRow(id, "completed");
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("JobTimeout");
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void handlerIgnoringInterruptsLosesItsJobWithoutBeingWaitedFor() {
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("hang", Args.class),
                KindOptions.defaults().withTimeout(Duration.ofMillis(300)).withRetryPolicy(RetryPolicy.fixed(Duration.ZERO)),
                job -> {
                    hangIgnoringInterrupts();
                    return Outcome.complete();
                }));
        s.start();
        long id = s.enqueue("hang", new Args(1), EnqueueOptions.defaults().withMaxAttempts(2));

        JobRow r = awaitRow(id, "discarded");
        // Both attempts' handlers are still stuck: the job's fate did not wait for them.
        assertThat(hung.get()).isEqualTo(2);
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("JobTimeout", "JobTimeout");
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::attempt).containsExactly(1, 2);
        assertThat(r.leaseUntil()).isNull();
        await("interrupts delivered", WAIT, () -> interruptsIgnored.get() >= 2);

        // When the stuck handlers finally return "complete", that late outcome changes nothing.
        released = true;
        await("handlers returned", WAIT, () -> hung.get() == 0);
        JobRow.holdsFor("job stays discarded", Duration.ofMillis(300), () -> {
            JobRow now = row(id);
            return now.state().equals("discarded") && now.errors().size() == 2;
        });
    }

    @Test
    void otherJobsKeepRunningWhileAHandlerIsHung() {
        Skipjack s = client(builder().queue("default", 2)
                .handler(JobKind.of("hang", Args.class), KindOptions.defaults().withTimeout(Duration.ofMillis(300)), job -> {
                    hangIgnoringInterrupts();
                    return Outcome.complete();
                })
                .handler(JobKind.of("quick", Args.class), job -> Outcome.complete()));
        s.start();
        long stuck = s.enqueue("hang", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));
        await("handler hung", WAIT, () -> hung.get() == 1);
        long[] quick = new long[20];
        for (int i = 0; i < quick.length; i++) {
            quick[i] = s.enqueue("quick", new Args(i));
        }

        for (long id : quick) {
            awaitRow(id, "completed");
        }
        assertThat(awaitRow(stuck, "discarded").lastError().errorClass()).isEqualTo("JobTimeout");
        assertThat(hung.get()).isEqualTo(1);
    }

    @Test
    void transactionalHandlerPastItsTimeoutIsInterruptedAndItsWritesRolledBack() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("slow-tx", Args.class),
                KindOptions.defaults().withTimeout(Duration.ofMillis(500)), (job, tx) -> {
                    try (PreparedStatement ps = tx.prepareStatement(
                            "INSERT INTO \"" + schema + "\".side_effects VALUES (?)")) {
                        ps.setLong(1, job.id());
                        ps.executeUpdate();
                    }
                    Thread.sleep(60_000);
                    return Outcome.complete();
                }));
        execute("CREATE TABLE \"" + schema + "\".side_effects (job_id bigint)");
        s.start();
        long id = s.enqueue("slow-tx", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));

        JobRow r = awaitRow(id, "discarded");
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("JobTimeout");
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".side_effects")).isZero();
    }

    @Test
    void transactionalHandlerStuckInALongStatementIsCutOffByItsTimeout() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("slow-sql", Args.class),
                KindOptions.defaults().withTimeout(Duration.ofMillis(500)), (job, tx) -> {
                    try (PreparedStatement ps = tx.prepareStatement("SELECT pg_sleep(60)")) {
                        ps.execute();
                    }
                    return Outcome.complete();
                }));
        s.start();
        long id = s.enqueue("slow-sql", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));

        JobRow r = awaitRow(id, "discarded");
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.errors()).hasSize(1);
        assertThat(r.errors().get(0).errorClass()).isEqualTo("JobTimeout");
        assertThat(Duration.between(r.attemptedAt(), r.errors().get(0).at()))
                .isBetween(Duration.ofMillis(500), Duration.ofSeconds(10));
    }

    @Test
    void stopWithAHungLeaseModeHandlerReturnsWithinItsDeadline() {
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("hang", Args.class), job -> {
            hangIgnoringInterrupts();
            return Outcome.complete();
        }));
        s.start();
        long id = s.enqueue("hang", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));
        await("handler hung", WAIT, () -> hung.get() == 1);

        long t0 = System.nanoTime();
        s.stop(Duration.ofMillis(500));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);

        assertThat(took).isBetween(Duration.ofMillis(450), Duration.ofMillis(500 + 3_000));
        assertThat(hung.get()).isEqualTo(1);
        JobRow r = row(id);
        assertThat(r.state()).isEqualTo("available");
        assertThat(r.leaseUntil()).isNull();
        assertThat(r.lastError().errorClass()).isEqualTo("HandedBack");

        // The handler finally returning "complete" must not complete a job it no longer holds.
        released = true;
        await("handler returned", WAIT, () -> hung.get() == 0);
        JobRow.holdsFor("handed-back job stays available", Duration.ofMillis(300),
                () -> row(id).state().equals("available"));
    }

    @Test
    void stopWithATimedOutHandlerStillHungReturnsWithinItsDeadline() {
        Skipjack s = client(builder().queue("default", 1).handler(JobKind.of("hang", Args.class),
                KindOptions.defaults().withTimeout(Duration.ofMillis(200)), job -> {
                    hangIgnoringInterrupts();
                    return Outcome.complete();
                }));
        s.start();
        long id = s.enqueue("hang", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));
        awaitRow(id, "discarded");
        assertThat(hung.get()).isEqualTo(1);

        long t0 = System.nanoTime();
        s.stop(Duration.ofMillis(500));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);

        assertThat(took).isLessThan(Duration.ofMillis(500 + 3_000));
        assertThat(row(id).state()).isEqualTo("discarded");
    }

    @Test
    void stopWithAHungTransactionalHandlerReturnsAndTheJobIsAvailableAgain() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("hang-tx", Args.class), (job, tx) -> {
            hangIgnoringInterrupts();
            return Outcome.complete();
        }));
        s.start();
        long id = s.enqueue("hang-tx", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));
        await("handler hung", WAIT, () -> hung.get() == 1);

        long t0 = System.nanoTime();
        s.stop(Duration.ofMillis(500));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);

        // Deadline, plus the grace given to an interrupted transactional handler, plus slack.
        assertThat(took).isLessThan(Duration.ofMillis(500 + 2_000 + 3_000));
        // Its connection was aborted: the claim rolled back, the job is available as if never claimed.
        await("job available again", WAIT, () -> row(id).state().equals("available"));
        JobRow r = row(id);
        assertThat(r.attempt()).isZero();
        assertThat(r.leaseUntil()).isNull();
        assertThat(hung.get()).isEqualTo(1);
    }
}
