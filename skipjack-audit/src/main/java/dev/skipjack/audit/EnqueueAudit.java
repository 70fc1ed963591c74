package dev.skipjack.audit;

import dev.skipjack.Backend;
import dev.skipjack.internal.sql.TableNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * What enqueueing processes were told, kept beside the jobs table for the multi-process unique-jobs
 * test (F-10): one row per enqueue call with the id and duplicate flag Skipjack returned, and a
 * start signal every process polls for, so processes started one after another begin together.
 * Like {@link AuditTables} it is test equipment in the jobs' schema, not part of Skipjack's schema,
 * and exists on PostgreSQL and the MySQL family (SQLite runs one process).
 */
public final class EnqueueAudit {

    /** How a call ended, as the {@code outcome} column stores it. */
    public enum Outcome {
        /** The enqueue returned and its transaction committed (the caller's, or Skipjack's own). */
        COMMITTED("committed"),
        /** The enqueue returned in the caller's transaction, which then rolled back on purpose. */
        ROLLED_BACK("rolled_back"),
        /** The enqueue or its transaction's commit threw; the transaction was rolled back. */
        FAILED("failed");

        private final String column;

        Outcome(String column) {
            this.column = column;
        }

        public String column() {
            return column;
        }
    }

    private final AuditSql sql;

    public EnqueueAudit(Backend backend, TableNames names) {
        this.sql = new AuditSql(backend, names);
    }

    /** The quoted, qualified name of the table of calls. */
    public String enqueuesTable() {
        return sql.names().qualified("audit_enqueues");
    }

    /** Creates the table of calls and the (empty) start table if they do not exist. */
    public void create(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql.get("audit_create_enqueues"));
            s.execute(sql.get("audit_create_start"));
        }
    }

    /** Releases every process waiting in {@link #awaitStart}. */
    public void signalStart(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("audit_signal_start"))) {
            ps.executeUpdate();
        }
    }

    /** Whether the start signal is there, read on {@code c} (a plain, non-locking read). */
    public boolean started(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("audit_started")); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }

    /**
     * Polls for the start signal every 5 ms until it is there.
     *
     * @throws SQLException when it is not there within {@code timeout}
     */
    public void awaitStart(DataSource dataSource, Duration timeout) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true); // a REPEATABLE READ snapshot would never see the signal
            }
            while (!started(c)) {
                if (System.nanoTime() > deadline) {
                    throw new SQLException("no start signal in " + sql.names().qualified("audit_start") + " within " + timeout);
                }
                Thread.sleep(5);
            }
        }
    }

    /**
     * Records one call on {@code c}: for a caller that commits, its own connection before the
     * commit, so the row exists exactly when the commit happened.
     *
     * @param jobId     the id Skipjack returned, or null when the call failed
     * @param duplicate the duplicate flag Skipjack returned, or null when the call failed
     * @param error     why the call failed, or null
     */
    public void record(Connection c, String process, int thread, String requestKey, boolean inCallerTransaction,
                       Outcome outcome, Long jobId, Boolean duplicate, String error) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("audit_record_enqueue"))) {
            ps.setString(1, process);
            ps.setInt(2, thread);
            ps.setString(3, requestKey);
            ps.setBoolean(4, inCallerTransaction);
            ps.setString(5, outcome.column());
            if (jobId == null) {
                ps.setNull(6, Types.BIGINT);
            } else {
                ps.setLong(6, jobId);
            }
            if (duplicate == null) {
                ps.setNull(7, Types.BOOLEAN);
            } else {
                ps.setBoolean(7, duplicate);
            }
            ps.setString(8, error);
            ps.executeUpdate();
        }
    }
}
