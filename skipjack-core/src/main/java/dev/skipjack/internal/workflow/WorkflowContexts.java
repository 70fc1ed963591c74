package dev.skipjack.internal.workflow;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.WorkflowContext;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Reads a starting workflow job's context (F-14): its parents' outputs (parent_outputs.sql), once,
 * before its handler runs. Jobs outside workflows never get here.
 */
public final class WorkflowContexts {

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final ObjectMapper mapper;

    public WorkflowContexts(DataSource dataSource, SqlStatements sql, ObjectMapper mapper) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.mapper = mapper;
    }

    /** The context of job {@code jobId}, read on {@code tx} (the job's transaction) or, when null, a pooled connection. */
    public WorkflowContext load(Connection tx, long jobId, long workflowId, String step) throws SQLException {
        if (tx != null) {
            return new Loaded(workflowId, step, parentOutputs(tx, jobId), mapper);
        }
        try (Connection c = dataSource.getConnection()) {
            return new Loaded(workflowId, step, parentOutputs(c, jobId), mapper);
        }
    }

    private Map<String, String> parentOutputs(Connection c, long jobId) throws SQLException {
        Map<String, String> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.get("parent_outputs"))) {
            ps.setLong(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** A context as read; the outputs are parsed when the handler asks, with the client's mapper. */
    private record Loaded(long workflowId, String step, Map<String, String> parentOutputs, ObjectMapper mapper)
            implements WorkflowContext {

        @Override
        public <R> R parentOutput(String parentStep, Class<R> type) {
            if (!parentOutputs.containsKey(parentStep)) {
                throw new IllegalArgumentException("step '" + parentStep + "' is not a parent of step '" + step
                        + "' in workflow " + workflowId + "; its parents: " + parentOutputs.keySet());
            }
            String json = parentOutputs.get(parentStep);
            if (json == null) {
                return null;
            }
            try {
                return mapper.readValue(json, type);
            } catch (Exception e) {
                throw new IllegalArgumentException("the output of step '" + parentStep + "' does not read as "
                        + type.getName() + ": " + e.getMessage(), e);
            }
        }

        @Override
        public String toString() {
            return "WorkflowContext[workflow " + workflowId + ", step " + step + ", parents " + parentOutputs.keySet() + "]";
        }
    }
}
