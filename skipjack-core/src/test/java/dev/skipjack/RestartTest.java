package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stop leaves neither leadership nor a node row behind, and a client stopped and started again
 * keeps what its new run wrote. A maintenance round whose statement was already sent when the
 * worker stopped is not stopped by the interrupt; the stop waits for it, and a round that outlasts
 * the wait undoes its own write (a trigger holds the round's insert on an advisory lock).
 *
 * <p>A client stopped and started again keeps what its new run wrote. A stop waits only a while for
 * its last writes (the leadership release, the node row's removal) and leaves them to finish in
 * the background; the next run has the same worker id, so a release that reached the database
 * after the new run had renewed leadership deleted the new run's row: another node could then take
 * leadership while this one still believed it led. The release here is held up by a row lock that
 * blocks a DELETE but not the new run's renewal (an update of non-key columns).
 */
class RestartTest extends DatabaseTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aLateLeadershipReleaseOfTheStoppedRunLeavesTheNextRunsLeadershipAlone() throws Exception {
        // A long term: nothing renews or re-inserts the row during the test but the start itself.
        Skipjack worker = client(builder().queue("default", 1).rescueInterval(Duration.ofMinutes(1)));
        worker.start();
        await("the worker leads maintenance", WAIT, () -> leaderRows(worker) == 1);
        Timestamp stoppedRunsLease = leaseUntil();
        Thread restart = new Thread(worker::start, "restart");
        try (Connection locker = dataSource.getConnection()) {
            locker.setAutoCommit(false);
            try (PreparedStatement ps = locker.prepareStatement("SELECT 1 FROM " + table("skipjack_leader")
                    + " WHERE name = 'maintenance' FOR KEY SHARE")) {
                ps.executeQuery().close();
            }
            worker.stop(Duration.ofSeconds(5));
            assertThat(releasesRunning()).as("the stopped run's release, still waiting for the row lock").isEqualTo(1);
            restart.start();
            await("the next run renewing leadership, or waiting for the stopped run's release", WAIT,
                    () -> leaseUntil() != null && leaseUntil().after(stoppedRunsLease) || waitsForTheLateRelease(restart));
            locker.commit();
        }
        restart.join(WAIT.toMillis());
        assertThat(restart.isAlive()).as("the restart returned").isFalse();
        await("the stopped run's release is over", WAIT, () -> releasesRunning() == 0);
        await("the next run leading", WAIT, () -> leaderRows(worker) == 1);
    }

    /** The fence lets the last run's writes through: a plain stop gives leadership up and leaves the nodes view. */
    @Test
    void aPlainStopGivesLeadershipUpAndLeavesTheNodesViewAndARestartComesBack() {
        Skipjack worker = client(builder().queue("default", 1).rescueInterval(Duration.ofMinutes(1)));
        worker.start();
        await("the worker leads and is listed", WAIT, () -> leaderRows(worker) == 1 && listed(worker));
        worker.stop(Duration.ofSeconds(5));
        assertThat(leaderRows(worker)).as("leadership rows after the stop").isZero();
        assertThat(listed(worker)).as("the stopped worker in the nodes view").isFalse();
        worker.start();
        await("the restarted worker leads and is listed", WAIT, () -> leaderRows(worker) == 1 && listed(worker));
    }

    /**
     * An interrupt does not stop a statement already sent: a renewal on its way when the worker
     * stopped, landing after the release, took leadership back for a whole term (no other node could
     * lead until it ran out). The stop now waits for the round before it gives leadership up.
     * {@code interruptedCaller}: the stop is called from a thread already interrupted (a container
     * shutting down by interrupt), which still waits for the round and finds its interrupt put back.
     */
    @ParameterizedTest(name = "interrupted caller: {0}")
    @ValueSource(booleans = {false, true})
    void aStopWaitsForAnElectionRoundOnItsWayBeforeGivingLeadershipUp(boolean interruptedCaller) throws Exception {
        Skipjack worker = client(builder().queue("default", 1).rescueInterval(Duration.ofMillis(100)));
        worker.start();
        await("the worker leads maintenance", WAIT, () -> leaderRows(worker) == 1);
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        Thread stop = new Thread(() -> {
            if (interruptedCaller) {
                Thread.currentThread().interrupt();
            }
            worker.stop(Duration.ofSeconds(5));
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        }, "stop");
        try (InsertsHeldUp held = holdUpInserts("skipjack_leader")) {
            await("a renewal held up in the database", WAIT, () -> held.waiting("-- Takes or renews leadership") == 1);
            stop.start();
            await("the stop waiting for the round, or over", WAIT,
                    () -> !stop.isAlive() || inStack(stop, "awaitTermination"));
            assertThat(stop.isAlive()).as("the stop waiting for the round").isTrue();
            assertThat(leaderRows(worker)).as("leadership rows while the stop waits for the round").isEqualTo(1);
        }
        stop.join(WAIT.toMillis());
        assertThat(stop.isAlive()).as("the stop returned").isFalse();
        assertThat(interruptedAfter.get()).as("the caller's interrupt after the stop").isEqualTo(interruptedCaller);
        await("the held-up renewal over", WAIT, () -> statementsRunning("-- Takes or renews leadership") == 0);
        // A renewal that lands after the stop's wait is deleted again by its round, in a statement of its own.
        await("leadership rows gone after the stop and the late renewal", Duration.ofSeconds(10),
                () -> leaderRows(worker) == 0);
    }

    /**
     * A round that outlasts the stop's wait undoes its own write when it ends: the renewal gives the
     * row up again, and the node refresh takes the stopped node off the nodes view again.
     */
    @Test
    void aRoundOutlastingTheStopUndoesItsOwnWrite() throws Exception {
        Skipjack worker = client(builder().queue("default", 1).rescueInterval(Duration.ofMillis(100)));
        worker.start();
        await("the worker leads and is listed", WAIT, () -> leaderRows(worker) == 1 && listed(worker));
        try (InsertsHeldUp leader = holdUpInserts("skipjack_leader");
             InsertsHeldUp nodes = holdUpInserts("skipjack_nodes")) {
            await("a renewal and a node refresh held up in the database", WAIT,
                    () -> leader.waiting("-- Takes or renews leadership") == 1
                            && nodes.waiting("-- A started node says it is alive") == 1);
            worker.stop(Duration.ofSeconds(5));
            assertThat(leaderRows(worker)).as("leadership rows once the stop returned").isZero();
            assertThat(listed(worker)).as("the stopped worker in the nodes view once the stop returned").isFalse();
        }
        await("the held-up renewal and refresh over", WAIT, () -> statementsRunning("-- Takes or renews leadership") == 0
                && statementsRunning("-- A started node says it is alive") == 0);
        // Well under the 30 s after which the view leaves out a node that stopped refreshing by itself.
        Duration undone = Duration.ofSeconds(10);
        await("leadership given up again after the late renewal", undone, () -> leaderRows(worker) == 0);
        await("the stopped worker off the nodes view again after the late refresh", undone, () -> !listed(worker));
    }

    /**
     * Holds up every insert into one of this test's tables (an upsert's too) until closed: a trigger
     * waits for an advisory lock this test holds. Deletes are not held up.
     */
    private InsertsHeldUp holdUpInserts(String tableName) throws SQLException {
        // Within 31 bits: pg_locks shows a bigint key as two oids, this one all in objid.
        long key = Math.floorMod((schema + "." + tableName).hashCode(), Integer.MAX_VALUE);
        String function = backend().qualified(schema, "hold_" + tableName);
        execute("CREATE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " PERFORM pg_advisory_xact_lock_shared(" + key + "); RETURN NEW; END $$");
        Connection holder = dataSource.getConnection();
        try (PreparedStatement ps = holder.prepareStatement("SELECT pg_advisory_lock(?)")) {
            ps.setLong(1, key);
            ps.executeQuery().close();
        }
        execute("CREATE TRIGGER hold_inserts BEFORE INSERT ON " + table(tableName)
                + " FOR EACH ROW EXECUTE FUNCTION " + function + "()");
        return new InsertsHeldUp(holder, key);
    }

    private final class InsertsHeldUp implements AutoCloseable {
        private final Connection holder;
        private final long key;

        InsertsHeldUp(Connection holder, long key) {
            this.holder = holder;
            this.key = key;
        }

        /** Statements of this test's schema beginning with {@code comment} waiting for this lock. */
        long waiting(String comment) {
            return queryLong("SELECT count(*) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid"
                    + " WHERE NOT l.granted AND l.locktype = 'advisory' AND l.classid = 0 AND l.objid::bigint = ?"
                    + " AND a.query LIKE ? AND a.query LIKE ?", key, comment + "%", "%" + schema + "%");
        }

        /** Lets the held-up inserts go on. */
        @Override
        public void close() throws SQLException {
            try (holder) {
                try (PreparedStatement ps = holder.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                    ps.setLong(1, key);
                    ps.executeQuery().close();
                }
            }
        }
    }

    /** Statements of this test's schema beginning with {@code comment} running (or waiting) now. */
    private long statementsRunning(String comment) {
        return queryLong("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                + " AND query LIKE ? AND query LIKE ?", comment + "%", "%" + schema + "%");
    }

    private static boolean listed(Skipjack worker) {
        return worker.admin().nodes().stream().anyMatch(n -> n.workerId().equals(worker.workerId()));
    }

    private long leaderRows(Skipjack worker) {
        return queryLong("SELECT count(*) FROM " + table("skipjack_leader") + " WHERE holder = ?", worker.workerId());
    }

    private Timestamp leaseUntil() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT lease_until FROM " + table("skipjack_leader"))) {
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getTimestamp(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Release statements of this test's schema running (or waiting for a lock) now. */
    private long releasesRunning() {
        return statementsRunning("-- Gives leadership up");
    }

    /** Whether the restart waits for the stopped run's release to finish before the new run begins. */
    private static boolean waitsForTheLateRelease(Thread restart) {
        return restart.getState() == Thread.State.BLOCKED && Arrays.stream(restart.getStackTrace())
                .anyMatch(frame -> frame.getClassName().endsWith(".RunFence"));
    }
}
