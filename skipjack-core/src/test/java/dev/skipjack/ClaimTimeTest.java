package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job's {@code attempted_at} is the instant its claim took it, never earlier: concurrency limits,
 * rate limits and ordered keys are judged by it (a rate-limited key counts the jobs started within
 * its period), and so is the operator who reads the stored times. On PostgreSQL a statement's
 * {@code now()} is taken when the server starts on it, before it waits for its table locks; a claim
 * that waited stamped its jobs with a time before the wait, before the job that freed its slot had
 * ended (a concurrency limit of 2 was judged exceeded from the stored times that way in CI).
 */
class ClaimTimeTest extends DatabaseTest {

    record Args(int n) {
    }

    @Test
    void aClaimThatWaitedForALockStampsItsJobsWithWhenItTookThem() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        Skipjack worker = client(builder().queue("default", 1)
                .handler(JobKind.of("stamped", Args.class), job -> {
                    ran.countDown();
                    return Outcome.complete();
                }));
        long id = worker.enqueue(JobRequest.of("stamped", new Args(1)));
        Instant lockReleased;
        try (Connection locker = dataSource.getConnection()) {
            locker.setAutoCommit(false);
            try (Statement st = locker.createStatement()) {
                st.execute("LOCK TABLE " + jobsTable() + " IN ACCESS EXCLUSIVE MODE");
                worker.start();
                await("the worker's claim waiting for the table lock", Duration.ofSeconds(30),
                        () -> queryLong("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                + " AND query LIKE '-- Claims up to N available jobs of one queue%'") > 0);
                try (ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
                    rs.next();
                    lockReleased = rs.getTimestamp(1).toInstant();
                }
            }
            locker.commit();
        }
        try {
            assertThat(ran.await(30, TimeUnit.SECONDS)).as("the job ran").isTrue();
            Instant attemptedAt = awaitState(worker, id, JobState.COMPLETED, Duration.ofSeconds(30)).attemptedAt();
            assertThat(attemptedAt).as("attempted_at of a claim that waited until %s", lockReleased)
                    .isAfterOrEqualTo(lockReleased);
        } finally {
            worker.stop(Duration.ofSeconds(10));
        }
    }
}
