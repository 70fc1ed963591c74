package dev.skipjack.internal.query;

import dev.skipjack.JobInfo;
import dev.skipjack.WorkflowInfo;
import dev.skipjack.WorkflowPolicy;
import dev.skipjack.WorkflowState;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads one workflow for operators (F-14): its row (find_workflow.sql), its jobs
 * (list_workflow_jobs.sql, the columns of find_job.sql) and its edges
 * (list_workflow_dependencies.sql). Each statement reads the database as it is when it runs.
 */
public final class WorkflowInfoReader {

    private final SqlStatements sql;
    private final JobInfoReader jobs;

    public WorkflowInfoReader(SqlStatements sql, JobInfoReader jobs) {
        this.sql = sql;
        this.jobs = jobs;
    }

    public Optional<WorkflowInfo> read(Connection c, long id) throws SQLException {
        String name;
        WorkflowState state;
        WorkflowPolicy policy;
        int remaining;
        java.time.Instant createdAt;
        java.time.Instant finishedAt;
        try (PreparedStatement ps = c.prepareStatement(sql.get("find_workflow"))) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                name = rs.getString(2);
                state = WorkflowState.fromDb(rs.getString(3));
                policy = WorkflowPolicy.fromDb(rs.getString(4));
                remaining = rs.getInt(5);
                createdAt = sql.dialect().getInstant(rs, 6);
                finishedAt = sql.dialect().getInstant(rs, 7);
            }
        }
        Map<Long, JobInfo> byId = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.get("list_workflow_jobs"))) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    JobInfo job = jobs.read(rs);
                    byId.put(job.id(), job);
                }
            }
        }
        Map<Long, List<String>> parents = new HashMap<>();
        Map<Long, List<String>> satisfied = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.get("list_workflow_dependencies"))) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long child = rs.getLong(1);
                    JobInfo parent = byId.get(rs.getLong(2));
                    String parentStep = parent == null ? "#" + rs.getLong(2) : parent.workflowStep();
                    parents.computeIfAbsent(child, k -> new ArrayList<>()).add(parentStep);
                    if (rs.getBoolean(3)) {
                        satisfied.computeIfAbsent(child, k -> new ArrayList<>()).add(parentStep);
                    }
                }
            }
        }
        List<WorkflowInfo.Step> steps = new ArrayList<>(byId.size());
        for (JobInfo job : byId.values()) {
            List<String> p = parents.getOrDefault(job.id(), List.of());
            List<String> s = satisfied.getOrDefault(job.id(), List.of());
            steps.add(new WorkflowInfo.Step(job.workflowStep(), p.stream().sorted().toList(), s.stream().sorted().toList(), job));
        }
        return Optional.of(new WorkflowInfo(id, name, state, policy, remaining, createdAt, finishedAt, steps));
    }
}
