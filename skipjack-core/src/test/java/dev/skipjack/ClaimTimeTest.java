package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job's {@code attempted_at} is the instant its claim took it, never earlier: concurrency limits,
 * rate limits and ordered keys are judged by it (a rate-limited key counts the jobs started within
 * its period), and so is the operator who reads the stored times. On PostgreSQL a statement's
 * {@code now()} is taken when the server starts on it, before it waits for its table locks; a claim
 * that waited stamped its jobs with a time before the wait, before the job that freed its slot had
 * ended (a concurrency limit of 2 was judged exceeded from the stored times that way in CI). One
 * test per worker claim: lease mode's (claim.sql) and transactional mode's
 * (claim_transactional.sql). {@link Skipjack#runJob}'s claim_job.sql stamps the same way but is
 * not tested so: runJob first promotes due jobs, a statement that waits for the lock before it.
 */
class ClaimTimeTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final JobKind<Args> KIND = JobKind.of("stamped", Args.class);

    @Test
    void aLeaseModeClaimThatWaitedForALockStampsItsJobsWithWhenItTookThem() throws Exception {
        Skipjack worker = client(builder().queue("default", 1).handler(KIND, job -> Outcome.complete()));
        long id = worker.enqueue(KIND, new Args(1));
        Instant released = releaseAfterAClaimWaits("-- Claims up to N available jobs of one queue", worker::start);
        assertStampedAfter(worker, id, released);
    }

    @Test
    void aTransactionalClaimThatWaitedForALockStampsItsJobsWithWhenItTookThem() throws Exception {
        Skipjack worker = client(builder().queue("default", 1).transactionalHandler(KIND, (job, tx) -> Outcome.complete()));
        long id = worker.enqueue(KIND, new Args(1));
        Instant released = releaseAfterAClaimWaits("-- Claims up to N available jobs of transactional kinds", worker::start);
        assertStampedAfter(worker, id, released);
    }

    /**
     * Locks the jobs table, runs {@code startClaim}, waits until a statement whose text starts with
     * {@code claimComment} waits for the lock, and releases it; returns the database's time just
     * before the release.
     */
    private Instant releaseAfterAClaimWaits(String claimComment, Runnable startClaim) throws Exception {
        try (Connection locker = dataSource.getConnection()) {
            locker.setAutoCommit(false);
            Instant released;
            try (Statement st = locker.createStatement()) {
                st.execute("LOCK TABLE " + jobsTable() + " IN ACCESS EXCLUSIVE MODE");
                startClaim.run();
                // The statement's text as pg_stat_activity keeps it: its first 1,024 bytes, the comment.
                await("the claim waiting for the table lock", WAIT,
                        () -> queryLong("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                + " AND query LIKE ?", claimComment + "%") > 0);
                try (ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
                    rs.next();
                    released = rs.getTimestamp(1).toInstant();
                }
            }
            locker.commit();
            return released;
        }
    }

    private void assertStampedAfter(Skipjack client, long id, Instant released) {
        Instant attemptedAt = awaitState(client, id, JobState.COMPLETED, WAIT).attemptedAt();
        assertThat(attemptedAt).as("attempted_at of a claim that waited until %s", released)
                .isAfterOrEqualTo(released);
    }
}
