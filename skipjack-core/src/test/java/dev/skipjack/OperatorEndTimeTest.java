package dev.skipjack;

import dev.skipjack.internal.maintenance.LeaseRescuer;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job an operator cancels or discards while it runs ends after it started: its
 * {@code finished_at} is never before its {@code attempted_at}. On PostgreSQL a statement's
 * {@code now()} is taken when the server starts on it, before it waits for a table lock and before
 * its snapshot; a cancel that waited could see a job whose claim committed during the wait and
 * stamp it as ended before it began. The claim here commits inside the lock holder's transaction
 * while the operator's statement waits for that lock. The statement then finds the job running
 * and only asks it to stop (schema version 15); the job ends when its worker, gone here, has its
 * lease rescued, after it started.
 */
class OperatorEndTimeTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final JobKind<Args> KIND = JobKind.of("ended", Args.class);

    @Test
    void aCancelThatWaitedForALockEndsAJobClaimedMeanwhileAfterItsStart() throws Exception {
        Skipjack client = client(builder());
        long id = client.enqueue(KIND, new Args(1));
        endWhileAClaimCommits(id, () -> client.admin().cancel(id));
        assertEndedAfterStart(client, id, JobState.CANCELLED);
    }

    @Test
    void aDiscardThatWaitedForALockEndsAJobClaimedMeanwhileAfterItsStart() throws Exception {
        Skipjack client = client(builder());
        long id = client.enqueue(KIND, new Args(1));
        endWhileAClaimCommits(id, () -> client.admin().discard(id));
        assertEndedAfterStart(client, id, JobState.DISCARDED);
    }

    /**
     * Locks the jobs table, starts {@code end} on another thread, waits until it waits for the lock,
     * claims job {@code id} in the lock holder's transaction (a claim as claim.sql stamps it:
     * the clock when it takes the row) and commits, which lets {@code end} go on.
     */
    private void endWhileAClaimCommits(long id, BooleanSupplier end) throws Exception {
        CompletableFuture<Boolean> ended;
        try (Connection locker = dataSource.getConnection()) {
            locker.setAutoCommit(false);
            try (Statement st = locker.createStatement()) {
                st.execute("LOCK TABLE " + jobsTable() + " IN ACCESS EXCLUSIVE MODE");
            }
            ended = CompletableFuture.supplyAsync(end::getAsBoolean);
            await("the operator's statement waiting for the table lock", WAIT,
                    () -> queryLong("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                            + " AND query LIKE ? AND query LIKE ?", "-- Operator %", "%" + schema + "%") > 0);
            try (PreparedStatement claim = locker.prepareStatement("UPDATE " + jobsTable()
                    + " SET state = 'running', attempt = attempt + 1, attempted_at = clock_timestamp(),"
                    + " lease_until = clock_timestamp() + interval '1 minute', claimed_by = 'test' WHERE id = ?")) {
                claim.setLong(1, id);
                assertThat(claim.executeUpdate()).isEqualTo(1);
            }
            locker.commit();
        }
        assertThat(ended.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the job was ended").isTrue();
    }

    private void assertEndedAfterStart(Skipjack client, long id, JobState state) throws Exception {
        JobInfo asked = client.find(id).orElseThrow();
        assertThat(asked.state()).as("claimed during the wait: asked to stop, not ended").isEqualTo(JobState.RUNNING);
        assertThat(asked.stopRequested()).isEqualTo(state);
        assertThat(asked.finishedAt()).isNull();
        execute("UPDATE " + jobsTable() + " SET lease_until = " + nowPlus(Duration.ofSeconds(-1)) + " WHERE id = " + id);
        SqlStatements sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        assertThat(new LeaseRescuer(dataSource, sql).rescueAll()).isEqualTo(1);

        JobInfo job = client.find(id).orElseThrow();
        assertThat(job.state()).isEqualTo(state);
        assertThat(job.finishedAt()).as("finished_at of a job attempted at %s", job.attemptedAt())
                .isAfterOrEqualTo(job.attemptedAt());
    }
}
