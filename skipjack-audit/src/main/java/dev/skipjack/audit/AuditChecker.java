package dev.skipjack.audit;

import dev.skipjack.Backend;
import dev.skipjack.internal.sql.TableNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Compares the execution audit written by test handlers with the jobs table (RELIABILITY.md,
 * "The audit"), independently of Skipjack's own bookkeeping: nothing lost, nothing stuck, no
 * unexplained second execution, no two executions of a job at once, attempts and errors that add
 * up. Shared by the fault tests and the {@code chaos} command. Runs on every backend; each check
 * returns a count and up to 10 example job ids as text ({@code "3, 7"}).
 */
public final class AuditChecker {

    /** How the audited jobs ran: the two modes promise different things. */
    public enum Mode {
        /** At least once: a second execution is allowed only where a recorded fault explains it. */
        LEASE,
        /** Exactly one committed audit row per completed job, whatever happened. */
        TRANSACTIONAL
    }

    private final AuditTables tables;

    /** The checker of the jobs under {@code names} on {@code backend}. */
    public AuditChecker(Backend backend, TableNames names) {
        this(new AuditTables(backend, names));
    }

    /** The checker of the jobs under {@code names} in the database {@code dataSource} leads to. */
    public static AuditChecker detect(DataSource dataSource, TableNames names) {
        return new AuditChecker(AuditTables.detect(dataSource, names));
    }

    private AuditChecker(AuditTables tables) {
        this.tables = tables;
    }

    /**
     * Runs every check once the run is over.
     *
     * @param enqueued how many jobs the driver enqueued (jobs missing from the table count as lost),
     *                 or -1 to skip that check
     */
    public AuditReport check(Connection c, Mode mode, long enqueued) throws SQLException {
        List<String> examples = new ArrayList<>();
        long jobs = single(c, "audit_check_missing");
        long missing = enqueued < 0 ? 0 : Math.max(0, enqueued - jobs);
        if (missing > 0) {
            examples.add("missing: " + missing + " of " + enqueued + " enqueued jobs are not in the table");
        }
        long stuck = countWithExamples(c, "audit_check_stuck", "stuck", examples);
        long lost = countWithExamples(c, "audit_check_lost", "lost", examples);
        long explained;
        long unexplained;
        try (PreparedStatement ps = c.prepareStatement(tables.get("audit_check_duplicates"))) {
            ps.setBoolean(1, mode == Mode.LEASE);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                explained = rs.getLong(1);
                unexplained = rs.getLong(2);
                addExamples(examples, "unexplained_duplicates", unexplained, rs.getString(3));
            }
        }
        long overlaps = countWithExamples(c, "audit_check_overlaps", "overlapping_leases", examples);
        long mismatches = countWithExamples(c, "audit_check_attempts", "attempt_mismatches", examples);
        Double recovery;
        try (PreparedStatement ps = c.prepareStatement(tables.get("audit_check_recovery"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            double v = rs.getDouble(1);
            recovery = rs.wasNull() ? null : v;
        }
        return new AuditReport(jobs, missing, lost, stuck, explained, unexplained, overlaps, mismatches, recovery,
                List.copyOf(examples));
    }

    private long single(Connection c, String statement) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(tables.get(statement)); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long countWithExamples(Connection c, String statement, String label, List<String> examples)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(tables.get(statement)); ResultSet rs = ps.executeQuery()) {
            rs.next();
            long n = rs.getLong(1);
            addExamples(examples, label, n, rs.getString(2));
            return n;
        }
    }

    private static void addExamples(List<String> examples, String label, long n, String ids) {
        if (n > 0 && ids != null) {
            examples.add(label + " e.g. jobs [" + ids + "]");
        }
    }
}
