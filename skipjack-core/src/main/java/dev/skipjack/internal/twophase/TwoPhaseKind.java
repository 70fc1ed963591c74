package dev.skipjack.internal.twophase;

import dev.skipjack.Job;
import dev.skipjack.Outcome;
import dev.skipjack.TwoPhaseJobHandler;
import dev.skipjack.TransactionalJobHandler;
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
 * A two-phase kind seen by the transactional path (F-5): its {@code prepare} is the transactional
 * handler; instead of a plain commit, the job runner calls {@link #commit}, which prepares, calls
 * the outside system and commits the prepared transaction.
 */
public final class TwoPhaseKind implements TransactionalJobHandler<Object> {

    private static final Logger log = LoggerFactory.getLogger(TwoPhaseKind.class);
    /** skipjack:schema:prefix:jobId:attempt; schema and prefix are validated identifiers. */
    private static final Pattern GID = Pattern.compile("skipjack:([a-z0-9_]+):([a-z0-9_]*):(\\d+):(\\d+)");

    private final TwoPhaseJobHandler<Object> handler;
    private volatile SqlStatements sql;
    /** The job the handler just prepared on this thread, for the external call that follows. */
    private final ThreadLocal<Job<Object>> prepared = new ThreadLocal<>();

    public TwoPhaseKind(TwoPhaseJobHandler<Object> handler) {
        this.handler = handler;
    }

    /** Binds the kind to the schema and prefix its global ids name; called when a worker starts. */
    public void bind(SqlStatements sql) {
        this.sql = sql;
    }

    @Override
    public Outcome handle(Job<Object> job, Connection tx) throws Exception {
        prepared.set(job);
        return handler.prepare(job, tx);
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

    /**
     * Prepares {@code c}'s transaction (which holds the handler's work and the job's completion),
     * calls the outside system, and commits the prepared transaction.
     *
     * @return null when the job committed (or its commit is left to the resolver); an exception
     *         when the external call failed and the prepared work was rolled back
     */
    public Exception commit(Connection c, long jobId, int attempt) throws SQLException {
        Job<Object> job = prepared.get();
        prepared.remove();
        String gid = gid(sql.names(), jobId, attempt);
        try (Statement s = c.createStatement()) {
            s.execute(sql.get("prepare_transaction", "gid", gid));
        }
        c.setAutoCommit(true); // COMMIT/ROLLBACK PREPARED cannot run in a transaction block
        try {
            handler.callExternal(job);
        } catch (Exception e) {
            finish(c, sql, "rollback_prepared", gid);
            return e;
        }
        try {
            finish(c, sql, "commit_prepared", gid);
        } catch (SQLException e) {
            // The external effect happened; the resolver will commit this once it is orphaned.
            log.warn("COMMIT PREPARED of job {} attempt {} failed; left to the resolver: {}", jobId, attempt, e.toString());
        }
        return null;
    }

    /** Asks the handler whether the external call of this attempt happened. */
    boolean externalEffectHappened(long jobId, int attempt) throws Exception {
        return handler.externalEffectHappened(jobId, attempt);
    }

    static void finish(Connection c, SqlStatements sql, String statement, String gid) throws SQLException {
        if (parse(gid) == null) {
            throw new IllegalArgumentException("not a Skipjack global transaction id: " + gid);
        }
        try (Statement s = c.createStatement()) {
            s.execute(sql.get(statement, "gid", gid));
        }
    }
}
