package dev.skipjack.internal.twophase;

import dev.skipjack.Job;
import dev.skipjack.TwoPhaseJobHandler;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The commit of a two-phase job (F-5) and the global transaction ids that tie a prepared
 * transaction to its job: {@code skipjack:<schema>:<prefix>:<jobId>:<attempt>}, built from
 * validated identifiers and numbers only, so it can stand in the SQL text the commands need.
 */
public final class TwoPhaseCommit {

    private static final Logger log = LoggerFactory.getLogger(TwoPhaseCommit.class);
    /** The unlock answered by another session is said once per process, not per job. */
    private static final java.util.concurrent.atomic.AtomicBoolean UNLOCK_WARNED = new java.util.concurrent.atomic.AtomicBoolean();
    private static final Pattern GID = Pattern.compile("skipjack:([a-z0-9_]+):([a-z0-9_]*):(\\d+):(\\d+)");

    private TwoPhaseCommit() {
    }

    /**
     * Prepares {@code c}'s transaction (which holds the handler's work and the job's completion),
     * calls the outside system, and commits the prepared transaction.
     *
     * @return null when the job committed (or its commit is left to the resolver); the exception
     *         of the external call when it failed and the prepared work was rolled back
     */
    public static Exception prepareCallAndCommit(Connection c, SqlStatements sql, Job<Object> job,
                                                 TwoPhaseJobHandler<Object> handler) throws SQLException {
        String gid = gid(sql.names(), job.id(), job.attempt());
        try (Statement s = c.createStatement()) {
            s.execute(sql.get("prepare_transaction", "gid", gid));
        }
        c.setAutoCommit(true); // COMMIT/ROLLBACK PREPARED cannot run in a transaction block
        // Held until the prepared transaction is finished: while it is, no resolver takes it for
        // an orphan, however long the call lasts (see lock_external_call.sql).
        externalCallLock(c, sql, "lock_external_call", gid);
        try {
            try {
                handler.callExternal(job);
            } catch (Throwable e) {
                // An Error too: left prepared, the job's row would stay locked until a resolver came.
                finish(c, sql, "rollback_prepared", gid);
                return e instanceof Exception ex ? ex : new RuntimeException("callExternal threw " + e, e);
            }
            try {
                finish(c, sql, "commit_prepared", gid);
            } catch (SQLException e) {
                // The external effect happened; the resolver will commit this once it is orphaned.
                log.warn("COMMIT PREPARED of job {} attempt {} failed; left to the resolver: {}", job.id(), job.attempt(),
                        e.toString());
            }
            return null;
        } finally {
            try {
                if (!externalCallLock(c, sql, "unlock_external_call", gid) && UNLOCK_WARNED.compareAndSet(false, true)) {
                    // Another server session answered (PgBouncer in transaction mode): the lock stays
                    // with the one that took it, and resolvers wait for the longest call instead.
                    log.warn("the external call lock of job {} attempt {} was not held by this session (a pooler"
                            + " between Skipjack and PostgreSQL?); two-phase liveness then rests on the longest"
                            + " external call, {}", job.id(), job.attempt(), PreparedTransactionResolver.LONGEST_EXTERNAL_CALL);
                }
            } catch (SQLException e) {
                // A broken session has lost the lock with it; a live one keeping it only makes a
                // resolver skip a transaction that is finished anyway.
                log.warn("releasing the external call lock of job {} attempt {} failed: {}", job.id(), job.attempt(),
                        e.toString());
            }
        }
    }

    /** Runs lock_external_call, unlock_external_call or try_lock_external_call for {@code gid}; the boolean it returns. */
    static boolean externalCallLock(Connection c, SqlStatements sql, String statement, String gid) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement(sql.get(statement))) {
            ps.setString(1, gid);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                // pg_advisory_lock returns void (read as true); the other two say whether they took or released it.
                return "lock_external_call".equals(statement) || rs.getBoolean(1);
            }
        }
    }

    /** The global id prefix of one Skipjack schema and table prefix. */
    public static String gidPrefix(TableNames names) {
        return "skipjack:" + names.schema() + ":" + names.prefix() + ":";
    }

    static String gid(TableNames names, long jobId, int attempt) {
        return gidPrefix(names) + jobId + ":" + attempt;
    }

    /** The job id and attempt a Skipjack global id names, or null if it is not one. */
    static long[] parse(String gid) {
        Matcher m = GID.matcher(gid);
        return m.matches() ? new long[] {Long.parseLong(m.group(3)), Long.parseLong(m.group(4))} : null;
    }

    /** Runs {@code statement} (commit_prepared or rollback_prepared) for a Skipjack global id. */
    static void finish(Connection c, SqlStatements sql, String statement, String gid) throws SQLException {
        if (parse(gid) == null) {
            throw new IllegalArgumentException("not a Skipjack global transaction id: " + gid);
        }
        try (Statement s = c.createStatement()) {
            s.execute(sql.get(statement, "gid", gid));
        }
    }
}
