package dev.skipjack.internal.twophase;

import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.TwoPhaseJobHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Resolves Skipjack's orphaned prepared transactions (F-5): those of this schema and prefix older
 * than the lease, whose worker died between PREPARE TRANSACTION and COMMIT PREPARED. The kind's
 * {@code externalEffectHappened} decides: commit the prepared work, or roll it back so the job runs
 * again. Runs on every node with two-phase kinds (not only the maintenance leader, which may serve
 * none of them). Safe on several nodes: a transaction another resolver finished is simply gone.
 * A transaction whose worker is alive is never taken for an orphan, however old: the worker holds
 * an advisory lock on its global id until it finished it (lock_external_call.sql).
 */
public final class PreparedTransactionResolver {

    private static final Logger log = LoggerFactory.getLogger(PreparedTransactionResolver.class);

    /**
     * The longest a live worker's external call is waited for: a prepared transaction older than
     * this is resolved even though its lock is held, since a session can outlive its worker (behind
     * PgBouncer in transaction mode the lock stays on a pooled server connection; a lost host's
     * backend lives until TCP keepalive notices). Without the bound, such an orphan and its job's
     * row would stay locked forever.
     */
    static final Duration LONGEST_EXTERNAL_CALL = Duration.ofHours(1);

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final Map<String, TwoPhaseJobHandler<Object>> handlers;
    private final Duration orphanAge;

    public PreparedTransactionResolver(DataSource dataSource, SqlStatements sql, Map<String, TwoPhaseJobHandler<Object>> handlers,
                                       Duration orphanAge) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.handlers = Map.copyOf(handlers);
        this.orphanAge = orphanAge;
    }

    /** Refuses to start two-phase kinds on a server that cannot prepare transactions. */
    public static void requirePreparedTransactions(DataSource dataSource, SqlStatements sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("max_prepared_transactions"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            if (rs.getInt(1) == 0) {
                throw new dev.skipjack.SkipjackException("two-phase job kinds need PostgreSQL's max_prepared_transactions"
                        + " > 0, and this server has 0: set it (e.g. to max_connections) in postgresql.conf and restart"
                        + " the server, or register these kinds with transactionalHandler instead");
            }
        }
    }

    /** Resolves every orphan now; returns how many were committed or rolled back. */
    public int resolveAll() throws Exception {
        int resolved = 0;
        try (Connection c = Transactions.autoCommit(dataSource)) {
            // Each orphan, in the order prepared, with whether it is past the longest external call.
            Map<String, Boolean> orphans = new LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("find_orphaned_prepared"))) {
                ps.setLong(1, LONGEST_EXTERNAL_CALL.toMillis());
                ps.setString(2, TwoPhaseCommit.gidPrefix(sql.names()));
                ps.setLong(3, orphanAge.toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        orphans.put(rs.getString(1), rs.getBoolean(2));
                    }
                }
            }
            for (Map.Entry<String, Boolean> orphan : orphans.entrySet()) {
                String gid = orphan.getKey();
                long[] parts = TwoPhaseCommit.parse(gid);
                if (parts == null) {
                    continue;
                }
                TwoPhaseJobHandler<Object> handler = handlerOf(c, parts[0]);
                if (handler == null) {
                    log.warn("prepared transaction {} belongs to a kind without a two-phase handler here; left alone", gid);
                    continue;
                }
                boolean locked = TwoPhaseCommit.externalCallLock(c, sql, "try_lock_external_call", gid);
                if (!locked && !orphan.getValue()) {
                    continue; // its worker is alive, still in its external call: not an orphan
                }
                if (!locked) {
                    log.warn("prepared transaction {} is older than {} and its worker's lock is still held: resolving it"
                            + " anyway (a session kept alive without its worker, e.g. behind PgBouncer in transaction"
                            + " mode, or an external call that never returns)", gid, LONGEST_EXTERNAL_CALL);
                }
                try {
                    if (resolve(c, handler, gid, parts)) {
                        resolved++;
                    }
                } catch (Exception e) {
                    // One orphan's failure (its handler's check, a lost connection) must not keep
                    // the others waiting for the next round.
                    log.warn("resolving prepared transaction {} failed; trying again next round: {}", gid, e.toString());
                } finally {
                    if (locked) {
                        TwoPhaseCommit.externalCallLock(c, sql, "unlock_external_call", gid);
                    }
                }
            }
        }
        return resolved;
    }

    /** Commits or rolls back one orphan as its handler says; false when another resolver finished it first. */
    private boolean resolve(Connection c, TwoPhaseJobHandler<Object> handler, String gid, long[] parts) throws Exception {
        boolean happened = handler.externalEffectHappened(parts[0], (int) parts[1]);
        try {
            TwoPhaseCommit.finish(c, sql, happened ? "commit_prepared" : "rollback_prepared", gid);
        } catch (SQLException e) {
            // 42704: another node resolved it first.
            if ("42704".equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
        log.info("resolved orphaned prepared transaction {}: {}", gid,
                happened ? "external effect happened, committed" : "no external effect, rolled back");
        return true;
    }

    private TwoPhaseJobHandler<Object> handlerOf(Connection c, long jobId) throws SQLException {
        // The prepared transaction holds the row's new version; this reads the committed one,
        // whose kind is the same, without waiting for its lock.
        try (PreparedStatement ps = c.prepareStatement(sql.get("find_job"))) {
            ps.setLong(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return handlers.get(rs.getString(3));
            }
        }
    }
}
