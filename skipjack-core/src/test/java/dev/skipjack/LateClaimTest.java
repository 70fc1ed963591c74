package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-3 at the claim: a worker whose claim comes back later than its lease could last starts none
 * of the jobs it claimed. It cannot tell how long the database has held them for it: the answer
 * may have waited on a cut network while the lease ran out and another host took the job. It hands
 * them back with their attempt given back (a write that changes nothing if another host has the
 * job by now): an attempt no handler ran is not counted, so a job on its last attempt is not
 * discarded for it.
 *
 * <p>Here the claim is held in the database rather than on the network: the test locks the jobs
 * table, enqueues in the same transaction and keeps it open for longer than the lease, so the
 * worker's claim waits and is answered only after the lease measured from its sending is over.
 * PostgreSQL only: the table lock that holds a claim is PostgreSQL's ({@code LOCK TABLE}); the
 * worker-side rule is the same on every backend.
 */
class LateClaimTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration LEASE = Duration.ofSeconds(1);

    @Test
    void aClaimAnsweredAfterItsLeaseRanOutStartsNothingAndTheJobRunsOnItsNextAttemptWithoutSpendingOne() throws Exception {
        List<Integer> attemptsRun = new CopyOnWriteArrayList<>();
        Skipjack worker = client(builder().workerId("late-claimer").lease(LEASE).queue("default", 1)
                .handler(JobKind.of("work", Args.class), job -> {
                    attemptsRun.add(job.attempt());
                    return Outcome.complete();
                }));
        worker.start();

        long id;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("LOCK TABLE " + jobsTable() + " IN ACCESS EXCLUSIVE MODE");
            }
            // One attempt only: the attempt claimed too late must not be the one that counts.
            id = worker.enqueue(c, JobKind.of("work", Args.class), new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));
            // The worker polls every 50 ms: its next claim waits behind the lock.
            await("the worker's claim to wait for the jobs table", Duration.ofSeconds(10), () -> queryLong(
                    "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = ?::regclass",
                    schema + ".skipjack_jobs") > 0);
            Thread.sleep(LEASE.toMillis() * 2); // fault duration, not synchronisation: the claim outlives its lease
            c.commit();
        }

        JobInfo done = awaitState(worker, id, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(attemptsRun).as("attempts whose handler ran: never the one claimed too late").containsExactly(2);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.errors()).extracting(JobError::errorClass).as("handed back, not rescued").containsExactly("HandedBack");
    }
}
