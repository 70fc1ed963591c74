package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-15: a queue waking from idle sends one claim statement, of at most its batch size, however
 * many slots it has; only behind a round that came back full (a backlog) does it split its claims
 * into statements on several connections. A wide queue (concurrency 512) would otherwise start the
 * job that woke it only once four statements had all come back. Each claim statement stamps its
 * jobs with one {@code attempted_at} (the instant it took them), so the jobs of the first statement
 * are the earliest group.
 */
class IdleWakeUpClaimTest extends DatabaseTest {

    record Args(int n) {
    }

    @Test
    void aWideQueueWakingFromIdleClaimsWithOneStatement() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Skipjack worker = client(builder().queue("default", 512)
                .handler(JobKind.of("work", Args.class), job -> {
                    started.countDown();
                    release.await();
                    return Outcome.complete();
                }));
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < 1_200; i++) {
            jobs.add(JobRequest.of("work", new Args(i)));
        }
        worker.enqueueAll(jobs);
        worker.start();
        try {
            assertThat(started.await(30, TimeUnit.SECONDS)).as("a job started").isTrue();
            // The first round came back full (one default batch of the 1,200), so the next one, for
            // the 312 free slots and more, is split: three statements at least, after the first's.
            await("the backlog's split round", Duration.ofSeconds(30),
                    () -> queryLong("SELECT count(DISTINCT attempted_at) FROM " + jobsTable() + " WHERE attempt = 1") >= 3);
            long firstStatement = queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE attempted_at = (SELECT min(attempted_at) FROM "
                    + jobsTable() + ")");
            assertThat(firstStatement).as("jobs of the first claim statement: one statement of the default batch,"
                    + " not a quarter of a four-way split round").isEqualTo(QueueOptions.DEFAULT_MAX_BATCH);
        } finally {
            release.countDown();
            worker.stop(Duration.ofSeconds(10));
        }
    }
}
