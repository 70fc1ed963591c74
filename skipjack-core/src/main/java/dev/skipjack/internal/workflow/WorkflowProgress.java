package dev.skipjack.internal.workflow;

import dev.skipjack.internal.notify.InsertNotifications;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.Row;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Advances workflows (F-14) when some of their jobs have just ended, in the transaction that ended
 * them. The caller passes only jobs whose change to a terminal state happened in that transaction
 * (its guarded update hit the row): a completion recorded twice, or after a rescue, never gets
 * here twice. Then, in this order:
 * <ol>
 * <li>a parent that completed, or ended otherwise under {@code CONTINUE}: its edges are marked
 *     satisfied (only those not yet: satisfy_dependencies.sql), its children's pending_deps
 *     decremented by the edges just satisfied, and, in a statement of its own, the waiting children
 *     left at zero made available (release_waiting_jobs.sql);</li>
 * <li>a job that ended without completing under {@code CANCEL}: every waiting job that depends on
 *     it is cancelled (cancel_dependents.sql);</li>
 * <li>each workflow's remaining count goes down by the jobs that ended here, and a workflow at zero
 *     finishes (count_down_workflows.sql, finish_workflows.sql).</li>
 * </ol>
 * Fan-in is never decided by reading the parents' states: two parents completing at once both
 * decrement the child's row, whose lock orders them (timgit/pg-boss#777). Locks are taken job rows
 * first (the ended jobs, then their children), the workflow rows last.
 */
public final class WorkflowProgress {

    /** A workflow job that just reached a terminal state in the caller's transaction. */
    public record Ended(long jobId, long workflowId, String state) {
        boolean completed() {
            return "completed".equals(state);
        }
    }

    /** Columns of decrement_pending_deps.sql's and count_down_workflows.sql's rows: id, count. */
    private static final List<ListType> ID_AND_COUNT = List.of(ListType.BIGINT, ListType.INTEGER);

    private final SqlStatements sql;
    /** Channel to NOTIFY when children become available (F-16), or null. */
    private final String notifyChannel;

    public WorkflowProgress(SqlStatements sql, String notifyChannel) {
        this.sql = sql;
        this.notifyChannel = notifyChannel;
    }

    /**
     * Advances the workflows of {@code ended} on {@code c}, inside its open transaction; returns the
     * queues of the jobs it made available (for waking this process's fetchers after the commit).
     */
    public Set<String> advance(Connection c, Collection<Ended> ended) throws SQLException {
        return advance(c, ended, true);
    }

    /**
     * As {@link #advance(Connection, Collection)}; {@code notify} false sends no NOTIFY for the jobs
     * made available (a transaction that will be prepared must send none).
     */
    public Set<String> advance(Connection c, Collection<Ended> ended, boolean notify) throws SQLException {
        if (ended.isEmpty()) {
            return Set.of();
        }
        Map<Long, String> policies = policies(c, ended);
        List<Long> satisfying = new ArrayList<>();
        List<Ended> failedUnderCancel = new ArrayList<>();
        Map<Long, Integer> endedPerWorkflow = new TreeMap<>();
        for (Ended e : ended) {
            endedPerWorkflow.merge(e.workflowId(), 1, Integer::sum);
            if (e.completed() || "continue".equals(policies.get(e.workflowId()))) {
                satisfying.add(e.jobId());
            } else {
                failedUnderCancel.add(e);
            }
        }
        Set<String> released = new TreeSet<>();
        if (!satisfying.isEmpty()) {
            released.addAll(satisfy(c, satisfying));
        }
        for (Ended failed : failedUnderCancel) {
            String message = "job " + failed.jobId() + ", which this job depends on (directly or through others), ended "
                    + failed.state() + " and its workflow's policy is CANCEL";
            List<Row> cancelled = sql.dialect().updateReturning(c, sql, "cancel_dependents",
                    Params.of().bigint(failed.jobId()), Params.of().text(message));
            for (Row r : cancelled) {
                endedPerWorkflow.merge(r.getLong(2), 1, Integer::sum);
            }
        }
        countDown(c, endedPerWorkflow);
        if (notify && notifyChannel != null && !released.isEmpty()) {
            InsertNotifications.send(c, sql, notifyChannel, released);
        }
        return released;
    }

    private Map<Long, String> policies(Connection c, Collection<Ended> ended) throws SQLException {
        Set<Long> ids = new TreeSet<>();
        ended.forEach(e -> ids.add(e.workflowId()));
        Map<Long, String> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.get("workflow_policies"))) {
            sql.dialect().setList(ps, 1, ListType.BIGINT, ids);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getLong(1), rs.getString(2));
                }
            }
        }
        return out;
    }

    /** Steps 1: satisfy the parents' edges, decrement their children, release those left at zero. */
    private Set<String> satisfy(Connection c, List<Long> parents) throws SQLException {
        List<Long> sorted = new ArrayList<>(new TreeSet<>(parents));
        List<Row> edges = sql.dialect().updateReturning(c, sql, "satisfy_dependencies",
                Params.of().list(ListType.BIGINT, sorted), Params.of());
        if (edges.isEmpty()) {
            return Set.of();
        }
        // Children in ascending id order: the order every batch update of jobs locks rows in.
        Map<Long, Integer> perChild = new TreeMap<>();
        for (Row edge : edges) {
            perChild.merge(edge.getLong(2), 1, Integer::sum); // (parent, child)
        }
        List<Long> children = new ArrayList<>(perChild.keySet());
        try (PreparedStatement ps = c.prepareStatement(sql.get("decrement_pending_deps"))) {
            Params.of().rows(ID_AND_COUNT, List.of(children, new ArrayList<>(perChild.values())))
                    .list(ListType.BIGINT, children)
                    .bind(ps, 1, sql.dialect());
            ps.executeUpdate();
        }
        List<Row> released = sql.dialect().updateReturning(c, sql, "release_waiting_jobs",
                Params.of().list(ListType.BIGINT, children), Params.of());
        Set<String> queues = new TreeSet<>();
        for (Row r : released) {
            queues.add(r.getString(2));
        }
        return queues;
    }

    /** Step 3: the workflows' remaining counts, and those left at zero finish. Workflow rows last. */
    private void countDown(Connection c, Map<Long, Integer> endedPerWorkflow) throws SQLException {
        List<Long> workflows = new ArrayList<>(endedPerWorkflow.keySet());
        try (PreparedStatement ps = c.prepareStatement(sql.get("count_down_workflows"))) {
            Params.of().rows(ID_AND_COUNT, List.of(workflows, new ArrayList<>(endedPerWorkflow.values())))
                    .list(ListType.BIGINT, workflows)
                    .bind(ps, 1, sql.dialect());
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get("finish_workflows"))) {
            sql.dialect().setList(ps, 1, ListType.BIGINT, workflows);
            ps.executeUpdate();
        }
    }
}
