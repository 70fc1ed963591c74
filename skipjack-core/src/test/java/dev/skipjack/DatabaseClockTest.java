package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Time-dependent behaviour is tested by moving the clock every statement reads as "now", not by
 * sleeping: a {@link DatabaseClock} shifts the database's time for one client, and delays, retry
 * backoff, lease rescue and retention follow it. Each test waits for hours of database time in
 * well under a second of real time, and first shows that nothing happens before the clock moves.
 */
class DatabaseClockTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    @Test
    void aJobDelayedByAnHourRunsOnceTheClockHasMovedAnHour() {
        DatabaseClock clock = new DatabaseClock();
        CountDownLatch ran = new CountDownLatch(1);
        Skipjack s = client(withMarker(builder()).clock(clock).queue("default", 2).handler(JobKind.of("later", Args.class), job -> {
            ran.countDown();
            return Outcome.complete();
        }));
        s.start();
        long id = s.enqueue("later", new Args(1), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));

        assertThat(row(id).state()).isEqualTo("scheduled");
        awaitPromotionRound(s);
        assertThat(row(id).state()).isEqualTo("scheduled");
        assertThat(ran.getCount()).isEqualTo(1);

        clock.advance(Duration.ofHours(1));
        awaitState(s, id, JobState.COMPLETED, WAIT);
        assertThat(row(id).attempt()).isEqualTo(1);
    }

    @Test
    void aFailedJobWaitsOutItsBackoffOnTheMovedClock() {
        DatabaseClock clock = new DatabaseClock();
        Skipjack s = client(withMarker(builder()).clock(clock).queue("default", 2).handler(JobKind.of("flaky", Args.class),
                KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ofMinutes(30))), job -> {
                    if (job.attempt() == 1) {
                        throw new IllegalStateException("first try fails");
                    }
                    return Outcome.complete();
                }));
        s.start();
        long id = s.enqueue("flaky", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));

        await("first failure recorded", WAIT, () -> row(id).state().equals("retryable"));
        JobRow failed = row(id);
        // Due 30 minutes after the failure, on the (shifted) database clock.
        assertThat(Duration.between(failed.errors().get(0).at(), failed.runAt()).toMillis())
                .isCloseTo(Duration.ofMinutes(30).toMillis(), within(50L));

        clock.advance(Duration.ofMinutes(29));
        // 29 minutes on, promotion rounds run and the job must still wait.
        awaitPromotionRound(s);
        assertThat(row(id).state()).isEqualTo("retryable");

        clock.advance(Duration.ofMinutes(2));
        awaitState(s, id, JobState.COMPLETED, WAIT);
        assertThat(row(id).attempt()).isEqualTo(2);
    }

    @Test
    void aHeldLeaseIsRescuedByANodeWhoseClockIsPastIt() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // The worker's own clock is the real one: its heartbeat keeps extending the lease to
        // real time + 15 s, which is exactly what a node an hour later sees as long expired.
        Skipjack worker = client(builder().workerId("holder").queue("default", 1).handler(JobKind.of("held", Args.class), job -> {
            started.countDown();
            release.await(30, TimeUnit.SECONDS);
            return Outcome.complete();
        }));
        worker.start();
        long id = worker.enqueue("held", new Args(1));
        assertThat(started.await(15, TimeUnit.SECONDS)).isTrue();
        assertThat(row(id).state()).isEqualTo("running");

        DatabaseClock hourLater = new DatabaseClock().advance(Duration.ofHours(1));
        Skipjack rescuer = client(builder().clock(hourLater).workerId("rescuer").queue("elsewhere", 1));
        rescuer.start();

        await("lease rescued", WAIT, () -> !row(id).state().equals("running"));
        JobRow rescued = row(id);
        assertThat(rescued.state()).isEqualTo("available");
        assertThat(rescued.errors()).hasSize(1);
        assertThat(rescued.errors().get(0).errorClass()).isEqualTo("LeaseExpired");
        assertThat(rescued.errors().get(0).worker()).isEqualTo("holder");
        release.countDown();
    }

    @Test
    void completedJobsArePrunedOnceTheClockPassesTheirRetention() {
        DatabaseClock clock = new DatabaseClock();
        Skipjack s = client(withMarker(builder()).clock(clock).pruneInterval(Duration.ofMillis(100))
                .retention(JobState.COMPLETED, Duration.ofHours(6))
                .retention(JobState.CANCELLED, Duration.ofHours(1))
                .queue("default", 2).handler(JobKind.of("done", Args.class), job -> Outcome.complete()));
        s.start();
        long id = s.enqueue("done", new Args(1));
        awaitState(s, id, JobState.COMPLETED, WAIT);
        // A cancelled marker, kept 1 h: once it is gone, a pruning round ran at +5 h.
        long marker = s.enqueue(JobRequest.of("marker", new Args(0), EnqueueOptions.defaults().withQueue("markers")));
        assertThat(s.admin().cancel(marker)).isTrue();

        clock.advance(Duration.ofHours(5));
        await("the marker pruned at +5 h", WAIT, () -> s.find(marker).isEmpty());
        assertThat(s.find(id)).isPresent();

        clock.advance(Duration.ofHours(2));
        await("pruned", WAIT, () -> s.find(id).isEmpty());
    }

    /** Declares the marker kind, enqueued to a queue no one serves. */
    private static Skipjack.Builder withMarker(Skipjack.Builder builder) {
        return builder.kind(JobKind.of("marker", Args.class));
    }

    /**
     * Returns once a promotion round certainly ran at the clock's current time: a marker due 1 ms
     * from now, in a queue no one serves, became available. Promotion makes every due job
     * available in the same round, so a job still waiting afterwards was not due.
     */
    private void awaitPromotionRound(Skipjack s) {
        long marker = s.enqueue(JobRequest.of("marker", new Args(0),
                EnqueueOptions.defaults().withQueue("markers").withDelay(Duration.ofMillis(1))));
        await("a promotion round", WAIT, () -> row(marker).state().equals("available"));
    }
}
