package dev.skipjack.testing.audit;

import dev.skipjack.internal.sql.TableNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;

/**
 * The execution audit that fault tests and the chaos command keep beside the jobs table: who ran
 * which attempt of which job and when, and which faults the driver injected. It lives in the same
 * schema, under the same prefix, as the jobs it audits; it is test and diagnostics equipment, not
 * part of Skipjack's schema.
 */
public final class AuditTables {

    private final AuditSql sql;

    public AuditTables(TableNames names) {
        this.sql = new AuditSql("postgres", names);
    }

    /** A rendered statement of the audit. */
    String get(String name) {
        return sql.get(name);
    }

    /** The quoted, qualified name of the executions table. */
    public String executionsTable() {
        return sql.names().qualified("audit_executions");
    }

    /** Creates the audit tables if they do not exist. */
    public void create(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(get("audit_create_executions"));
            s.execute(get("audit_create_executions_index"));
            s.execute(get("audit_create_faults"));
        }
    }

    /**
     * Records one execution on {@code c} (in transactional mode, the job's own connection, so the
     * row commits or rolls back with the job).
     *
     * @param startedAt database time the execution began, or null for the transaction's now() (in a job's
     *                  transaction: its claim time)
     */
    public void recordExecution(Connection c, long jobId, int attempt, String worker, long pid, Timestamp startedAt)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(get("audit_record_execution"))) {
            ps.setLong(1, jobId);
            ps.setInt(2, attempt);
            ps.setString(3, worker);
            ps.setLong(4, pid);
            ps.setTimestamp(5, startedAt);
            ps.executeUpdate();
        }
    }

    /** Records a fault injected into {@code worker} ({@code "*"}: every worker) at the database clock. */
    public void recordFault(Connection c, String worker, String kind) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(get("audit_record_fault"))) {
            ps.setString(1, worker);
            ps.setString(2, kind);
            ps.executeUpdate();
        }
    }
}
