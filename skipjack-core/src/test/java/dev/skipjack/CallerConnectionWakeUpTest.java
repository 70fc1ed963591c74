package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-16 in one process: jobs enqueued on the caller's connection in auto-commit are committed when
 * the call returns, so the enqueuing client wakes its own fetchers and admits keyed jobs at once,
 * as for an enqueue in a transaction of its own. The worker here polls, and runs its admission
 * pass, once a minute, without LISTEN: only the in-process wake-up starts the jobs within seconds.
 */
class CallerConnectionWakeUpTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final Duration NEVER_POLLS = Duration.ofMinutes(1);
    private static final JobKind<Args> WORK = JobKind.of("work", Args.class);
    /** One queue per case: no job of the others ends in it, so nothing but the enqueue can wake its fetcher. */
    private static final List<String> QUEUES = List.of("wake_plain", "wake_keyed", "wake_bulk");

    private static Thread fetcherOf(String queue) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("skipjack-fetcher-" + queue)).findFirst().orElse(null);
    }

    @Test
    void jobsEnqueuedOnAnAutoCommitConnectionStartAtOnce() throws Exception {
        BlockingQueue<Integer> started = new LinkedBlockingQueue<>();
        Skipjack.Builder builder = builder().pollInterval(NEVER_POLLS).promoteInterval(NEVER_POLLS).listenNotify(false)
                .handler(WORK, job -> {
                    started.add(job.args().n());
                    return Outcome.complete();
                });
        QUEUES.forEach(q -> builder.queue(q, 4));
        Skipjack s = client(builder);
        s.start();
        // Each fetcher's first poll, at start, found nothing: once it waits, only a wake-up starts a
        // job within a minute.
        for (String q : QUEUES) {
            await("the first poll of " + q + " to end", Duration.ofSeconds(10), () -> {
                Thread fetcher = fetcherOf(q);
                return fetcher != null && inStack(fetcher, "awaitWake");
            });
        }

        try (Connection c = dataSource.getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
            s.enqueue(c, WORK, new Args(1), EnqueueOptions.defaults().withQueue("wake_plain"));
            assertThat(started.poll(10, TimeUnit.SECONDS)).as("a plain job").isEqualTo(1);

            s.enqueue(c, WORK, new Args(2), EnqueueOptions.defaults().withQueue("wake_keyed")
                    .withConcurrencyKey("tenant-1", 1));
            assertThat(started.poll(10, TimeUnit.SECONDS)).as("a keyed job, admitted at once").isEqualTo(2);

            EnqueueOptions bulk = EnqueueOptions.defaults().withQueue("wake_bulk");
            s.enqueueAll(c, List.of(JobRequest.of(WORK, new Args(3), bulk), JobRequest.of(WORK, new Args(4), bulk)));
            assertThat(List.of(started.poll(10, TimeUnit.SECONDS), started.poll(10, TimeUnit.SECONDS)))
                    .as("a bulk enqueue").containsExactlyInAnyOrder(3, 4);
        }
    }
}
