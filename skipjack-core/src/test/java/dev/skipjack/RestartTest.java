package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client stopped and started again keeps what its new run wrote. A stop waits only a while for
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
        return queryLong("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                + " AND query LIKE '-- Gives leadership up%' AND query LIKE ?", "%" + schema + "%");
    }

    /** Whether the restart waits for the stopped run's release to finish before the new run begins. */
    private static boolean waitsForTheLateRelease(Thread restart) {
        return restart.getState() == Thread.State.BLOCKED && Arrays.stream(restart.getStackTrace())
                .anyMatch(frame -> frame.getClassName().endsWith(".RunFence"));
    }
}
