package dev.skipjack.internal.workflow;

import dev.skipjack.internal.enqueue.InsertRow;
import dev.skipjack.internal.notify.InsertNotifications;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Inserts a workflow (F-14) on whatever connection it is given, in its open transaction: the
 * workflow row (insert_workflow.sql), its jobs parents first (insert_workflow_job.sql: a job with
 * parents is 'waiting'), and its edges (insert_job_dependencies.sql). The caller's transaction
 * makes it all exist at once, or not at all.
 */
public final class WorkflowInserter {

    /** One validated step: its job, and its parents as indexes of earlier steps of the same list. */
    public record StepRow(String step, InsertRow job, List<Integer> parents) {
    }

    /** The workflow's id and its jobs' ids, in the order of the steps given. */
    public record Inserted(long workflowId, List<Long> jobIds, Set<String> queuesDueNow) {
    }

    private final SqlStatements sql;
    /** Channel to NOTIFY after inserting (F-16), or null when notifications are off. */
    private final String notifyChannel;

    public WorkflowInserter(SqlStatements sql, String notifyChannel) {
        this.sql = sql;
        this.notifyChannel = notifyChannel;
    }

    /**
     * Inserts a workflow whose steps are in dependency order (every parent before its children).
     * Returns its id, its jobs' ids in step order, and the queues that got a job due now.
     */
    public Inserted insert(Connection c, String name, String policy, List<StepRow> steps) throws SQLException {
        long workflowId = sql.dialect().insertReturningId(c, sql, "insert_workflow",
                Params.of().text(name).text(policy).integer(steps.size()));
        List<Long> ids = new ArrayList<>(steps.size());
        List<Long> children = new ArrayList<>();
        List<Long> parents = new ArrayList<>();
        Set<String> dueNow = new TreeSet<>();
        long now = System.currentTimeMillis();
        for (StepRow s : steps) {
            InsertRow r = s.job();
            long id = sql.dialect().insertReturningId(c, sql, "insert_workflow_job", Params.of()
                    .text(r.queue()).text(r.kind()).text(r.argsJson()).integer(r.priority()).integer(r.maxAttempts())
                    .bigintOrNull(r.runAtMillis()).bigintOrNull(r.delayMillis())
                    .bigint(workflowId).text(s.step()).integer(s.parents().size()));
            ids.add(id);
            for (int parent : s.parents()) {
                children.add(id);
                parents.add(ids.get(parent));
            }
            // The client clock only decides whom to wake; a wrong guess costs a poll, never a job.
            boolean later = (r.runAtMillis() != null && r.runAtMillis() > now)
                    || (r.delayMillis() != null && r.delayMillis() > 0);
            if (s.parents().isEmpty() && !later) {
                dueNow.add(r.queue());
            }
        }
        if (!children.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("insert_job_dependencies"))) {
                Params.of().rows(List.of(ListType.BIGINT, ListType.BIGINT), List.of(children, parents))
                        .bind(ps, 1, sql.dialect());
                ps.executeUpdate();
            }
        }
        if (notifyChannel != null) {
            InsertNotifications.send(c, sql, notifyChannel, dueNow);
        }
        return new Inserted(workflowId, ids, dueNow);
    }
}
