package dev.skipjack.internal.workflow;

import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Retention of workflows (F-14, F-19): a finished workflow is deleted whole, its edges, its jobs and
 * its row in one transaction, once it finished longer ago than the retention of the job state its
 * own state corresponds to (completed: completed; failed: discarded; cancelled: cancelled). The
 * pruner of single jobs leaves workflow jobs alone, so a workflow that still runs never loses a
 * job (oban-bg/oban#722), and a finished one is never shown in part.
 */
public final class WorkflowPruner {

    /** Workflows per transaction: each takes its jobs and edges along. */
    public static final int BATCH = 100;

    private final SqlStatements sql;

    public WorkflowPruner(SqlStatements sql) {
        this.sql = sql;
    }

    /**
     * Deletes up to {@link #BATCH} workflows in {@code workflowState} that finished more than
     * {@code retentionMillis} ago, with their jobs and edges; returns how many. {@code c} is in auto-commit.
     */
    public int pruneBatch(Connection c, String workflowState, long retentionMillis) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql.get("finished_workflows"))) {
            ps.setString(1, workflowState);
            ps.setLong(2, retentionMillis);
            ps.setInt(3, BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        return sql.dialect().inShortTransaction(c, tx -> {
            for (String statement : List.of("delete_workflow_dependencies", "delete_workflow_jobs", "delete_workflows")) {
                try (PreparedStatement ps = tx.prepareStatement(sql.get(statement))) {
                    sql.dialect().setList(ps, 1, ListType.BIGINT, ids);
                    ps.executeUpdate();
                }
            }
            return ids.size();
        });
    }
}
