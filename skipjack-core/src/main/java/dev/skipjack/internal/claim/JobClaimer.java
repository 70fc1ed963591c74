package dev.skipjack.internal.claim;

import dev.skipjack.internal.sql.Jdbc;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Runs the single-statement claim (F-1): claim.sql for lease mode, claim_transactional.sql for F-4. */
public final class JobClaimer {

    private final SqlStatements sql;
    private final String workerId;
    private final long leaseMillis;

    public JobClaimer(SqlStatements sql, String workerId, Duration lease) {
        this.sql = sql;
        this.workerId = workerId;
        this.leaseMillis = lease.toMillis();
    }

    /**
     * Claims and commits up to {@code limit} jobs of {@code queue} whose kind is not in
     * {@code transactionalKinds}; they are running under this worker's lease when this returns.
     */
    public List<ClaimedJob> claim(Connection c, String queue, Set<String> transactionalKinds, int limit) throws SQLException {
        return run(c, "claim", queue, transactionalKinds, limit);
    }

    /**
     * Claims up to {@code limit} jobs of the given transactional kinds inside the open transaction
     * of {@code c}; nobody else sees them as claimed until that transaction commits.
     */
    public List<ClaimedJob> claimTransactional(Connection c, String queue, Set<String> transactionalKinds, int limit)
            throws SQLException {
        return run(c, "claim_transactional", queue, transactionalKinds, limit);
    }

    private static Instant instantOfMicros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    private List<ClaimedJob> run(Connection c, String statement, String queue, Set<String> kinds, int limit)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(statement))) {
            ps.setString(1, queue);
            ps.setArray(2, Jdbc.textArray(c, kinds));
            ps.setInt(3, limit);
            ps.setString(4, workerId);
            ps.setLong(5, leaseMillis);
            List<ClaimedJob> jobs = new ArrayList<>(limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    jobs.add(new ClaimedJob(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getInt(5), rs.getInt(6), rs.getInt(7), instantOfMicros(rs.getLong(8)), rs.getLong(9)));
                }
            }
            return jobs;
        }
    }
}
