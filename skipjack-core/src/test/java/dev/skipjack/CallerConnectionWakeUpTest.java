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

    @Test
    void jobsEnqueuedOnAnAutoCommitConnectionStartAtOnce() throws Exception {
        BlockingQueue<Integer> started = new LinkedBlockingQueue<>();
        Skipjack s = client(builder().pollInterval(NEVER_POLLS).promoteInterval(NEVER_POLLS).listenNotify(false)
                .queue("default", 4).handler(WORK, job -> {
                    started.add(job.args().n());
                    return Outcome.complete();
                }));
        // Enqueued before start, so the worker's first poll, at start, finds it: once it has started,
        // that poll is over, and from now on only a wake-up starts a job within a minute.
        s.enqueue(WORK, new Args(0));
        s.start();
        assertThat(started.poll(10, TimeUnit.SECONDS)).as("the job found by the poll at start").isEqualTo(0);

        try (Connection c = dataSource.getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
            s.enqueue(c, WORK, new Args(1));
            assertThat(started.poll(10, TimeUnit.SECONDS)).as("a plain job").isEqualTo(1);

            s.enqueue(c, WORK, new Args(2), EnqueueOptions.defaults().withConcurrencyKey("tenant-1", 1));
            assertThat(started.poll(10, TimeUnit.SECONDS)).as("a keyed job, admitted at once").isEqualTo(2);

            s.enqueueAll(c, List.of(JobRequest.of(WORK, new Args(3)), JobRequest.of(WORK, new Args(4))));
            assertThat(List.of(started.poll(10, TimeUnit.SECONDS), started.poll(10, TimeUnit.SECONDS)))
                    .as("a bulk enqueue").containsExactlyInAnyOrder(3, 4);
        }
    }
}
