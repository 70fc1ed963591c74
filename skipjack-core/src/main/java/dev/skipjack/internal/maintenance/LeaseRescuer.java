package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.Row;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.internal.workflow.WorkflowProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Returns jobs whose lease expired to the queue (F-3). Runs on the maintenance leader only; should
 * two nodes ever both run it (a leadership hand-over), concurrent rescuers
 * split the work with SKIP LOCKED and the statement re-checks each row, so running it twice, or
 * racing a completion, is harmless. Each batch is one short transaction, in which a workflow's job
 * discarded on its last attempt, or ended as an operator asked while it ran, also advances its
 * workflow (F-14); a round first reads whether any lease expired at all, so an idle round writes
 * nothing.
 */
public final class LeaseRescuer {

    private static final Logger log = LoggerFactory.getLogger(LeaseRescuer.class);
    static final int BATCH = 1_000;

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final WorkflowProgress workflows;

    public LeaseRescuer(DataSource dataSource, SqlStatements sql) {
        this(dataSource, sql, null);
    }

    /** @param notifyChannel channel to NOTIFY when a rescue makes workflow jobs available, or null */
    public LeaseRescuer(DataSource dataSource, SqlStatements sql, String notifyChannel) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.workflows = new WorkflowProgress(sql, notifyChannel);
    }

    /** Rescues every expired lease now; returns how many jobs came back (or were discarded). */
    public int rescueAll() throws Exception {
        int total = 0;
        try (Connection c = Transactions.autoCommit(dataSource)) {
            if (!anyExpired(c)) {
                return 0;
            }
            int n;
            do {
                n = sql.dialect().inShortTransaction(c, tx -> {
                    List<Row> rows = sql.dialect().updateReturning(tx, sql, "rescue_expired_leases",
                            Params.of().integer(BATCH), Params.of());
                    List<WorkflowProgress.Ended> ended = new ArrayList<>();
                    for (Row r : rows) {
                        Long workflowId = r.getLongOrNull(2);
                        String state = r.getString(3);
                        // Discarded out of attempts, or ended as an operator asked (stop_requested).
                        if (workflowId != null && ("discarded".equals(state) || "cancelled".equals(state))) {
                            ended.add(new WorkflowProgress.Ended(r.getLong(1), workflowId, state));
                        }
                    }
                    workflows.advance(tx, ended);
                    return rows.size();
                });
                total += n;
            } while (n == BATCH);
        }
        if (total > 0) {
            log.info("rescued {} jobs whose lease expired", total);
        }
        return total;
    }

    /** A read: a round with nothing to rescue opens no write transaction. */
    private boolean anyExpired(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("expired_leases_exist"));
             ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }
}
