package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.sql.SqlStatements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;

/**
 * Returns jobs whose lease expired to the queue (F-3). Runs on the maintenance leader only; should
 * two nodes ever both run it (a leadership hand-over), concurrent rescuers
 * split the work with SKIP LOCKED and the statement re-checks each row, so running it twice, or
 * racing a completion, is harmless.
 */
public final class LeaseRescuer {

    private static final Logger log = LoggerFactory.getLogger(LeaseRescuer.class);
    static final int BATCH = 1_000;

    private final DataSource dataSource;
    private final SqlStatements sql;

    public LeaseRescuer(DataSource dataSource, SqlStatements sql) {
        this.dataSource = dataSource;
        this.sql = sql;
    }

    /** Rescues every expired lease now; returns how many jobs came back. */
    public int rescueAll() throws Exception {
        int total = BatchedStatement.runUntilDrained(dataSource, sql, "rescue_expired_leases", BATCH, row -> { });
        if (total > 0) {
            log.info("rescued {} jobs whose lease expired", total);
        }
        return total;
    }
}
