package dev.skipjack;

import dev.skipjack.SkipjackListener.JobResult;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.LogCapture;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observation SPI: a registered {@link SkipjackListener} hears of every job enqueued, every
 * claim round, every start with its wait in the queue and every run's result; a listener that
 * throws breaks neither an enqueue nor a worker and is logged once. On every backend: the events
 * come from the job path that each dialect shares, and the wait from each one's run_at.
 */
class SkipjackListenerTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final JobKind<Args> OK = JobKind.of("ok", Args.class);
    private static final JobKind<Args> FLAKY = JobKind.of("flaky", Args.class);
    private static final JobKind<Args> DOOMED = JobKind.of("doomed", Args.class);
    private static final JobKind<Args> STOPPED = JobKind.of("stopped", Args.class);
    private static final JobKind<Args> SNOOZY = JobKind.of("snoozy", Args.class);

    record Enqueued(String queue, String kind, int count) {
    }

    record Started(String queue, String kind, int attempt, Duration queueWait) {
    }

    record Finished(String queue, String kind, int attempt, JobResult result, Duration executionTime) {
    }

    /** Keeps every event; the queues are safe to add to from every thread. */
    static final class Recording implements SkipjackListener {
        final ConcurrentLinkedQueue<Enqueued> enqueued = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Integer> claims = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Started> started = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Finished> finished = new ConcurrentLinkedQueue<>();
        final AtomicInteger rescued = new AtomicInteger();

        @Override
        public void jobsEnqueued(String queue, String kind, int count) {
            enqueued.add(new Enqueued(queue, kind, count));
        }

        @Override
        public void jobsClaimed(String queue, int count) {
            claims.add(count);
        }

        @Override
        public void jobStarted(String queue, String kind, int attempt, Duration queueWait) {
            started.add(new Started(queue, kind, attempt, queueWait));
        }

        @Override
        public void jobFinished(String queue, String kind, int attempt, JobResult result, Duration executionTime) {
            finished.add(new Finished(queue, kind, attempt, result, executionTime));
        }

        @Override
        public void leasesRescued(int count) {
            rescued.addAndGet(count);
        }

        List<JobResult> resultsOf(String kind) {
            return finished.stream().filter(f -> f.kind().equals(kind)).map(Finished::result).toList();
        }
    }

    /** Throws from every event. */
    static final class Throwing implements SkipjackListener {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public void jobsEnqueued(String queue, String kind, int count) {
            throw new IllegalStateException("listener bug " + calls.incrementAndGet());
        }

        @Override
        public void jobsClaimed(String queue, int count) {
            throw new IllegalStateException("listener bug " + calls.incrementAndGet());
        }

        @Override
        public void jobStarted(String queue, String kind, int attempt, Duration queueWait) {
            throw new IllegalStateException("listener bug " + calls.incrementAndGet());
        }

        @Override
        public void jobFinished(String queue, String kind, int attempt, JobResult result, Duration executionTime) {
            throw new IllegalStateException("listener bug " + calls.incrementAndGet());
        }
    }

    private Skipjack.Builder withHandlers(Skipjack.Builder b) {
        return b.queue("default", 4)
                .handler(OK, job -> Outcome.complete())
                .handler(FLAKY, KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ZERO)), job -> {
                    if (job.attempt() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    return Outcome.complete();
                })
                .handler(DOOMED, KindOptions.defaults().withMaxAttempts(1), job -> {
                    throw new IllegalStateException("always fails");
                })
                .handler(STOPPED, job -> Outcome.cancel("not wanted"))
                .handler(SNOOZY, job -> job.attempt() == 1 && job.args().n() == 0
                        ? Outcome.snooze(Duration.ZERO) : Outcome.complete());
    }

    @Test
    void reportsEachJobFromEnqueueToResult() throws Exception {
        Recording events = new Recording();
        Skipjack client = client(withHandlers(builder()).listener(events));

        client.enqueueAll(List.of(JobRequest.of(OK, new Args(1)), JobRequest.of(OK, new Args(2)),
                JobRequest.of(OK, new Args(3)), JobRequest.of(FLAKY, new Args(4))));
        EnqueueOptions unique = EnqueueOptions.defaults().withUnique(Unique.byKey("only-one"));
        client.enqueue(DOOMED, new Args(5), unique);
        client.enqueue(DOOMED, new Args(6), unique); // a duplicate: nothing inserted, nothing reported
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            client.enqueue(c, STOPPED, new Args(7));
            c.commit();
        }
        // Due a minute before the worker starts: its wait in the queue is at least that.
        client.enqueue(SNOOZY, new Args(0), EnqueueOptions.defaults().withRunAt(Instant.now().minusSeconds(60)));

        assertThat(events.enqueued).containsExactly(new Enqueued("default", "ok", 3),
                new Enqueued("default", "flaky", 1), new Enqueued("default", "doomed", 1),
                new Enqueued("default", "stopped", 1), new Enqueued("default", "snoozy", 1));

        client.start();
        // 3 ok, 2 flaky, 1 doomed, 1 stopped, 2 snoozy runs
        await("nine runs to finish", WAIT, () -> events.finished.size() >= 9);

        assertThat(events.resultsOf("ok")).containsExactly(JobResult.COMPLETED, JobResult.COMPLETED, JobResult.COMPLETED);
        assertThat(events.resultsOf("flaky")).containsExactly(JobResult.FAILED, JobResult.COMPLETED);
        assertThat(events.resultsOf("doomed")).containsExactly(JobResult.DISCARDED);
        assertThat(events.resultsOf("stopped")).containsExactly(JobResult.CANCELLED);
        assertThat(events.resultsOf("snoozy")).containsExactly(JobResult.SNOOZED, JobResult.COMPLETED);
        assertThat(events.finished).allSatisfy(f -> {
            assertThat(f.queue()).isEqualTo("default");
            assertThat(f.executionTime().isNegative()).isFalse();
        });
        assertThat(events.finished.stream().filter(f -> f.kind().equals("flaky")).map(Finished::attempt))
                .containsExactly(1, 2);

        assertThat(events.started).hasSize(9);
        assertThat(events.started).allSatisfy(s -> assertThat(s.queueWait().isNegative()).isFalse());
        Started overdue = events.started.stream().filter(s -> s.kind().equals("snoozy") && s.attempt() == 1)
                .findFirst().orElseThrow();
        assertThat(overdue.queueWait()).isGreaterThanOrEqualTo(Duration.ofSeconds(59));
        // Every run was claimed by some round; none reported an empty one.
        assertThat(events.claims).allSatisfy(n -> assertThat(n).isPositive());
        assertThat(events.claims.stream().mapToInt(Integer::intValue).sum()).isEqualTo(9);
    }

    @Test
    void aThrowingListenerBreaksNeitherEnqueueNorWorkersAndIsLoggedOnce() {
        Throwing throwing = new Throwing();
        Recording events = new Recording();
        try (LogCapture log = new LogCapture()) {
            Skipjack client = client(withHandlers(builder()).listener(throwing).listener(events));
            List<Long> ids = client.enqueueAll(List.of(JobRequest.of(OK, new Args(1)), JobRequest.of(OK, new Args(2)),
                    JobRequest.of(OK, new Args(3))));
            client.enqueue(OK, new Args(4));
            client.start();
            for (long id : ids) {
                awaitState(client, id, JobState.COMPLETED, WAIT);
            }
            await("four runs reported to the listener after the throwing one", WAIT, () -> events.finished.size() == 4);
            assertThat(throwing.calls.get()).isGreaterThanOrEqualTo(2 + 4 + 4 + 1);
            assertThat(log.linesContaining("Skipjack listener " + Throwing.class.getName() + " threw")).hasSize(1);
        }
    }

    @Test
    void leaseRescuesAreReported() {
        Recording events = new Recording();
        Skipjack client = client(builder().queue("other", 1).listener(events));
        // A job as a worker that died would have left it: running, its lease over.
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt, max_attempts, claimed_by,"
                + " attempted_at, lease_until) VALUES ('default', 'gone', '{}', 'running', 1, 5, 'dead-worker', "
                + nowPlus(Duration.ofSeconds(-30)) + ", " + nowPlus(Duration.ofSeconds(-10)) + ")");
        client.start();
        await("the expired lease to be rescued and reported", WAIT, () -> events.rescued.get() == 1);
    }
}
