package dev.skipjack.lab.failover;

import dev.skipjack.cli.CliException;
import dev.skipjack.audit.AuditTables;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Optional;

/**
 * Watches the application's view of a failover: a new connection through the application's
 * multi-host URL every 250 ms, as a worker would get one. It notes when a connection first reaches
 * another server than the old primary (writable), records the failover as a fault for every worker
 * in the audit there (so the checker can tell a re-execution it caused from an unexplained one),
 * and then waits for the first job completed on the new primary (recovered) and for the
 * maintenance leader's lease to be renewed there (leader-only work has moved).
 */
final class FailoverProbe {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final long ROUND_MILLIS = 250;

    private final String url;
    private final String user;
    private final FailoverStatements sql;
    private final AuditTables audit;

    FailoverProbe(String jdbcUrl, String user, FailoverStatements sql, AuditTables audit) {
        // Short timeouts: a round that hangs on a dead server would blur the figures.
        this.url = jdbcUrl + "&connectTimeout=2&socketTimeout=5&loginTimeout=3&ApplicationName=skipjack-failover-probe";
        this.user = user;
        this.sql = sql;
        this.audit = audit;
    }

    /**
     * Measures one fault started at {@code startNanos} on the primary at {@code oldPort}.
     *
     * @param kind     {@code perform_failover} or {@code hard_stop}, for the result
     * @param lagBytes WAL bytes the standby had not flushed when the fault began, for the result
     */
    FailoverResult.Fault measure(String kind, int oldPort, long startNanos, long lagBytes) throws InterruptedException {
        long deadline = startNanos + TIMEOUT.toNanos();
        Double writable = null;
        Double recovered = null;
        Double leader = null;
        long firstCompleted = -1;
        Timestamp firstLease = null;
        String last = "no connection yet";
        while (recovered == null || leader == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new CliException("no recovery within " + TIMEOUT.toMinutes() + " min of the " + kind
                        + " (writable " + writable + " s, recovered " + recovered + " s, leader " + leader + " s); last: " + last);
            }
            try (Connection c = DriverManager.getConnection(url, user, null)) {
                long[] completed = completedAndPort(c);
                if (completed[1] == oldPort) {
                    last = "still on the old primary";
                } else {
                    double now = secondsSince(startNanos);
                    if (writable == null) {
                        writable = now;
                        firstCompleted = completed[0];
                        audit.recordFault(c, "*", kind);
                    } else if (recovered == null && completed[0] > firstCompleted) {
                        recovered = now;
                    }
                    Optional<Timestamp> lease = leaseUntil(c);
                    if (firstLease == null) {
                        firstLease = lease.orElse(new Timestamp(0));
                    } else if (leader == null && lease.isPresent() && lease.get().after(firstLease)) {
                        leader = now;
                    }
                }
            } catch (SQLException e) {
                last = e.getMessage();
            }
            Thread.sleep(ROUND_MILLIS);
        }
        return new FailoverResult.Fault(kind, lagBytes, writable, recovered, leader);
    }

    private long[] completedAndPort(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("completed_count")); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getInt(2)};
        }
    }

    private Optional<Timestamp> leaseUntil(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("leader_lease")); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(rs.getTimestamp(2)) : Optional.empty();
        }
    }

    private static double secondsSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
