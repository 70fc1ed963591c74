package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-3 under overload: a worker whose acknowledgements cannot be written stops claiming once a
 * bounded number of finished jobs wait for theirs, instead of claiming on until leases expire
 * and jobs that already ran are rescued and run again. When the writes go through again, every
 * job completes exactly once.
 */
class AcknowledgementBackpressureTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final int CONCURRENCY = 4;
    private static final int MAX_BATCH = 10;
    /** QueueDispatcher's bound: running + one round of claims (4 statements) + two completer batches of 2,000. */
    private static final int HELD_AT_MOST = CONCURRENCY + MAX_BATCH * 4 + 2 * 2_000;
    private static final int JOBS = HELD_AT_MOST * 2;

    @Test
    void claimingStopsWhileAcknowledgementsCannotBeWrittenAndResumesAfter() {
        AtomicInteger handled = new AtomicInteger();
        Skipjack worker = client(builder().queue(new QueueOptions("default", CONCURRENCY, MAX_BATCH))
                .lease(Duration.ofMinutes(10))
                .handler(JobKind.of("work", Args.class), job -> {
                    handled.incrementAndGet();
                    return Outcome.complete();
                }));
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            jobs.add(JobRequest.of("work", new Args(i)));
        }
        worker.enqueueAll(jobs);
        // Every acknowledgement fails (and is retried) while this trigger exists.
        execute("CREATE FUNCTION \"" + schema + "\".refuse_completion() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN RAISE EXCEPTION 'acknowledgements refused by the test'; END $$");
        execute("CREATE TRIGGER refuse_completion BEFORE UPDATE ON " + jobsTable()
                + " FOR EACH ROW WHEN (NEW.state = 'completed') EXECUTE FUNCTION \"" + schema + "\".refuse_completion()");
        worker.start();

        String running = "SELECT count(*) FROM " + jobsTable() + " WHERE state = 'running'";
        await("the worker to reach its bound", Duration.ofSeconds(60), () -> queryLong(running) >= HELD_AT_MOST - MAX_BATCH * 4);
        // It stays there: for two seconds of retried acknowledgements nothing more is claimed.
        long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        while (System.nanoTime() < until) {
            assertThat(queryLong(running)).isLessThanOrEqualTo(HELD_AT_MOST);
        }
        assertThat(handled.get()).isLessThanOrEqualTo(HELD_AT_MOST);

        execute("DROP TRIGGER refuse_completion ON " + jobsTable());
        await("every job completed", Duration.ofSeconds(60), () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'completed' AND attempt = 1") == JOBS);
        assertThat(handled.get()).isEqualTo(JOBS);
    }
}
