package dev.skipjack.internal.worker;

import dev.skipjack.internal.sql.Jdbc;
import dev.skipjack.internal.sql.SqlStatements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Extends the leases of every lease-mode execution this process holds, in one statement, on the
 * database clock (F-3). An execution whose lease could not be extended has lost its job to the
 * rescuer: its handler is interrupted and its outcome will not count (the guarded writes ignore it).
 */
public final class LeaseHeartbeat implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(LeaseHeartbeat.class);

    private final WorkerContext ctx;
    private final SqlStatements sql;

    public LeaseHeartbeat(WorkerContext ctx, SqlStatements sql) {
        this.ctx = ctx;
        this.sql = sql;
    }

    @Override
    public void run() {
        List<Execution> leased = ctx.tracker().leased();
        if (leased.isEmpty()) {
            return;
        }
        try (Connection c = ctx.dataSource().getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            Set<Long> extended = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("extend_leases"))) {
                ps.setLong(1, ctx.lease().toMillis());
                ps.setArray(2, Jdbc.bigintArray(c, leased, Execution::id));
                ps.setArray(3, Jdbc.intArray(c, leased, Execution::attempt));
                ps.setString(4, ctx.workerId());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        extended.add(rs.getLong(1));
                    }
                }
            }
            for (Execution e : leased) {
                if (!extended.contains(e.id()) && ctx.tracker().isTracked(e) && e.settle()) {
                    // Not running under our lease any more (rescued after a stall): stop the handler
                    // and forget the execution; the rescued copy is the one that counts.
                    log.warn("job {} attempt {} lost its lease; interrupting its handler", e.id(), e.attempt());
                    e.interrupt();
                    ctx.tracker().finish(e);
                }
            }
        } catch (Throwable t) {
            log.warn("lease heartbeat failed: {}", t.toString());
        }
    }
}
