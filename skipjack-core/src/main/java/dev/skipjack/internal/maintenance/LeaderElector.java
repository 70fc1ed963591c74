package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.internal.threads.WorkerThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Elects one node to run periodic maintenance (the rescuer, the two-phase resolver; later the
 * pruner and cron): a row in the leader table with a lease on the database clock, taken or renewed
 * by one statement (leader_acquire.sql). No session state, so it is safe behind PgBouncer in
 * transaction mode. Locally a node counts itself leader only until the time it sent its last
 * successful renewal plus the term, which ends before the database's lease does, so two nodes
 * never both believe they lead. The maintenance it guards is safe to run twice anyway; leadership
 * only saves the duplicate work.
 */
public final class LeaderElector {

    private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);
    public static final String MAINTENANCE = "maintenance";

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final String holder;
    private final Duration term;
    /** Keeps this run's release from deleting the row of a later run of the same client (same holder). */
    private final RunFence fence;
    private final long run;
    private volatile long leaderUntilNanos = System.nanoTime();
    private volatile boolean wasLeader;
    /** Set by the stop's release: a renewal finishing after it gives the row up again. */
    private volatile boolean released;
    private volatile Runnable onElected = () -> { };

    /** How often to renew: twice per term, so one missed round keeps the leadership. */
    Duration renewInterval() {
        return term.dividedBy(2);
    }

    /** @param term how long a leadership lasts without renewal; renew well within it */
    public LeaderElector(DataSource dataSource, SqlStatements sql, String holder, Duration term) {
        this(dataSource, sql, holder, term, new RunFence());
    }

    private LeaderElector(DataSource dataSource, SqlStatements sql, String holder, Duration term, RunFence fence) {
        this(dataSource, sql, holder, term, fence, fence.nextRun());
    }

    /**
     * @param fence the client's: each run of the client elects with the same holder
     * @param run   this run's number from {@code fence}
     */
    public LeaderElector(DataSource dataSource, SqlStatements sql, String holder, Duration term, RunFence fence, long run) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.holder = holder;
        this.term = term;
        this.fence = fence;
        this.run = run;
    }

    /** {@code action} runs on the election's thread each time this node becomes the leader. */
    void onElected(Runnable action) {
        this.onElected = action;
    }

    /**
     * Takes or renews leadership if free or ours; returns whether this node leads now (never once
     * {@link #release} ran).
     */
    public boolean tryAcquire() throws Exception {
        long sentAt = System.nanoTime();
        boolean acquired;
        try (Connection c = Transactions.autoCommit(dataSource)) {
            acquired = sql.dialect().acquireLeadership(c, sql, MAINTENANCE, holder, term.toMillis());
        } finally {
            if (released) {
                // A round on its way when the node stopped: its renewal may have reached the database
                // after the stop's release (and committed even if reading its answer failed), and no
                // other node could lead until that term ran out.
                WorkerThreads.outsideInterrupt(this::deleteOwnRow);
            }
        }
        if (released) {
            return false;
        }
        if (acquired) {
            leaderUntilNanos = sentAt + term.toNanos();
        }
        boolean leads = isLeader();
        if (leads != wasLeader) {
            log.info("worker {} {} maintenance leader", holder, leads ? "is now" : "is no longer");
            wasLeader = leads;
            if (leads) {
                onElected.run();
            }
        }
        return leads;
    }

    public boolean isLeader() {
        return System.nanoTime() - leaderUntilNanos < 0;
    }

    /**
     * Gives leadership up for the rest of this run, so another node takes over at its next try; not
     * once the client has started again (the row is then the new run's).
     */
    public void release() {
        released = true;
        leaderUntilNanos = System.nanoTime();
        deleteOwnRow();
    }

    private void deleteOwnRow() {
        try (Connection c = Transactions.autoCommit(dataSource)) {
            boolean deleted = fence.ifLatest(run, () -> {
                try (PreparedStatement ps = c.prepareStatement(sql.get("leader_release"))) {
                    ps.setQueryTimeout((int) RunFence.WRITE_TIMEOUT.toSeconds());
                    ps.setString(1, MAINTENANCE);
                    ps.setString(2, holder);
                    ps.executeUpdate();
                }
            });
            if (!deleted) {
                log.debug("worker {} started again before its last run gave leadership up; the row is the new run's", holder);
            }
        } catch (Exception e) {
            log.warn("could not release maintenance leadership: {}", e.toString());
        }
    }
}
