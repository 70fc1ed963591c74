package dev.skipjack.audit;

import dev.skipjack.Backend;
import dev.skipjack.internal.sql.DatabaseDetector;
import dev.skipjack.internal.sql.TableNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The execution audit that fault tests and the chaos command keep beside the jobs table: who ran
 * which attempt of which job and when, and which faults the driver injected. It lives in the same
 * schema, under the same prefix, as the jobs it audits; it is test and diagnostics equipment, not
 * part of Skipjack's schema. Its SQL is per backend ({@link AuditSql}); times are stored as the
 * jobs table stores them on that backend, so the checks compare them with the jobs' own times.
 */
public final class AuditTables {

    private final AuditSql sql;

    /** The audit of the jobs under {@code names} on {@code backend}. */
    public AuditTables(Backend backend, TableNames names) {
        this.sql = new AuditSql(backend, names);
    }

    /** The audit of the jobs under {@code names} in the database {@code dataSource} leads to (detected as Skipjack detects it). */
    public static AuditTables detect(DataSource dataSource, TableNames names) {
        return new AuditTables(DatabaseDetector.detect(dataSource).backend(), names);
    }

    /** A rendered statement of the audit. */
    String get(String name) {
        return sql.get(name);
    }

    /** The quoted, qualified name of the executions table. */
    public String executionsTable() {
        return sql.names().qualified("audit_executions");
    }

    /** The quoted, qualified name of the jobs table this audit watches (the naive control claims from it). */
    public String jobsTable() {
        return sql.names().qualified("jobs");
    }

    /**
     * One entry of a job's error history, with the job it belongs to.
     *
     * @param jobAttempt the job's attempt now; {@code attempt} is the entry's
     */
    public record JobError(long jobId, String kind, String state, String claimedBy, int jobAttempt, int attempt,
                           String errorClass, String worker) {
    }

    /** Every entry of every job's error history, in job order (the backend's JSON read per dialect). */
    public List<JobError> jobErrors(Connection c) throws SQLException {
        List<JobError> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(get("audit_job_errors")); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new JobError(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
                        rs.getInt(6), rs.getString(7), rs.getString(8)));
            }
        }
        return out;
    }

    /**
     * Creates the audit tables if they do not exist. The executions index is a statement of its own
     * where the dialect can create it idempotently; the MySQL family declares it in the table.
     */
    public void create(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(get("audit_create_executions"));
            if (sql.has("audit_create_executions_index")) {
                s.execute(get("audit_create_executions_index"));
            }
            s.execute(get("audit_create_faults"));
            if (sql.has("audit_create_connections")) {
                s.execute(get("audit_create_connections"));
            }
        }
    }

    /**
     * The statement a worker's pool runs on each new connection (HikariCP's connectionInitSql) so
     * that a driver killing connections can name the worker it hit ({@link #randomWorkerConnection}),
     * or null where the dialect does not need one (PostgreSQL names connections by application name).
     */
    public String connectionInitSql(String worker) {
        if (!sql.has("audit_record_connection")) {
            return null;
        }
        if (!worker.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("worker id '" + worker + "' must match [A-Za-z0-9_.-]+");
        }
        return get("audit_record_connection").replace("{{worker}}", "'" + worker + "'");
    }

    /** A server connection of a worker: its id and the worker that opened it. */
    public record WorkerConnection(long id, String worker) {
    }

    /** One random open connection of this audit's workers (MySQL family), or null when there is none. */
    public WorkerConnection randomWorkerConnection(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(get("audit_pick_connection")); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? new WorkerConnection(rs.getLong(1), rs.getString(2)) : null;
        }
    }

    /**
     * Kills one random open connection of this audit's workers on the MySQL family ({@code KILL
     * CONNECTION}) and records the fault against the worker that opened it: a handler whose write
     * committed just before the kill sees an error, and its job runs again, explained. Returns how
     * many it killed (0 or 1: none open, or it closed between the two statements).
     */
    public int killRandomWorkerConnection(Connection c) throws SQLException {
        WorkerConnection victim = randomWorkerConnection(c);
        if (victim == null) {
            return 0;
        }
        try (Statement s = c.createStatement()) {
            s.execute("KILL CONNECTION " + victim.id());
        } catch (SQLException gone) {
            return 0; // unknown thread id: it closed meanwhile
        }
        recordFault(c, victim.worker(), "terminated");
        return 1;
    }

    /** The database clock now, in epoch microseconds (to pass to {@link #recordExecution}). */
    public long databaseNowMicros(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(get("audit_now_micros")); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Records one execution on {@code c} (in transactional mode, the job's own connection, so the
     * row commits or rolls back with the job).
     *
     * @param startedAtMicros database time the execution began in epoch microseconds, or null for the
     *                        database's now (on PostgreSQL the transaction's: in a job's transaction its
     *                        claim time; elsewhere the statement's)
     */
    public void recordExecution(Connection c, long jobId, int attempt, String worker, long pid, Long startedAtMicros)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(get("audit_record_execution"))) {
            ps.setLong(1, jobId);
            ps.setInt(2, attempt);
            ps.setString(3, worker);
            ps.setLong(4, pid);
            if (startedAtMicros == null) {
                ps.setNull(5, Types.BIGINT);
            } else {
                ps.setLong(5, startedAtMicros);
            }
            ps.executeUpdate();
        }
    }

    /**
     * Creates the tables of the concurrency-key probe ({@link #enterKey}): the executions of keyed
     * jobs running now, and what each saw when it began.
     */
    public void createKeyProbe(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(get("audit_create_running"));
            s.execute(get("audit_create_key_peaks"));
        }
    }

    /**
     * At the start of an execution of a keyed job (F-12, F-13): records it as running, then how
     * many executions of its key are running, itself included, and returns that count. Counted
     * only while their job is still running in their attempt: a killed worker's execution stops
     * counting once its lease is rescued, as its slot says. Each statement commits by itself, so
     * of executions that begin together the last to count sees them all, and the largest count
     * recorded is the most that ran at once.
     */
    public long enterKey(Connection c, long jobId, int attempt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(get("audit_enter_key"))) {
            ps.setLong(1, jobId);
            ps.setInt(2, attempt);
            ps.setLong(3, jobId);
            ps.executeUpdate();
        }
        long running;
        try (PreparedStatement ps = c.prepareStatement(get("audit_count_key"))) {
            ps.setLong(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                running = rs.getLong(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(get("audit_record_key_peak"))) {
            ps.setLong(1, jobId);
            ps.setInt(2, attempt);
            ps.setLong(3, running);
            ps.setLong(4, jobId);
            ps.executeUpdate();
        }
        return running;
    }

    /** At the end of an execution of a keyed job: it no longer runs. */
    public void leaveKey(Connection c, long jobId, int attempt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(get("audit_leave_key"))) {
            ps.setLong(1, jobId);
            ps.setInt(2, attempt);
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
