package dev.skipjack.internal.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.JobError;
import dev.skipjack.JobInfo;
import dev.skipjack.JobState;
import dev.skipjack.internal.sql.Dialect;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/** Reads the job columns of find_job.sql, list_jobs.sql and list_workflow_jobs.sql (same order) into a {@link JobInfo}. */
public final class JobInfoReader {

    private final ObjectMapper mapper;
    private final Dialect dialect;

    public JobInfoReader(ObjectMapper mapper, Dialect dialect) {
        this.mapper = mapper;
        this.dialect = dialect;
    }

    public JobInfo read(ResultSet rs) throws SQLException {
        return new JobInfo(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                rs.getInt(5), JobState.fromDb(rs.getString(6)), dialect.getInstant(rs, 7), rs.getInt(8),
                rs.getInt(9), errors(rs.getString(10)), rs.getString(11), dialect.getInstant(rs, 12),
                dialect.getInstant(rs, 13), dialect.getInstant(rs, 14), dialect.getInstant(rs, 15),
                rs.getString(16), tags(rs.getString(17)), rs.getString(18), longOrNull(rs, 19), rs.getString(20),
                rs.getString(21), rs.getString(22), stopRequested(rs.getString(23)));
    }

    /** The state an operator asked the running job to end in; null when none (or not 'cancelled' or 'discarded'). */
    private static JobState stopRequested(String state) {
        return "cancelled".equals(state) || "discarded".equals(state) ? JobState.fromDb(state) : null;
    }

    /** The tags from their JSON array; tags that do not parse are shown as one, rather than failing the read. */
    private List<String> tags(String json) {
        if (json == null) {
            return List.of();
        }
        try {
            List<String> out = new ArrayList<>();
            for (JsonNode n : mapper.readTree(json)) {
                out.add(n.asText());
            }
            return List.copyOf(out);
        } catch (Exception e) {
            return List.of(json);
        }
    }

    private static Long longOrNull(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    /** The error history; a history that does not parse is shown as one entry rather than failing the read. */
    private List<JobError> errors(String json) {
        try {
            List<JobError> out = new ArrayList<>();
            for (JsonNode n : mapper.readTree(json)) {
                out.add(new JobError(n.hasNonNull("at") ? OffsetDateTime.parse(n.get("at").asText()).toInstant() : null,
                        n.path("attempt").asInt(), n.path("class").asText(null), n.path("message").asText(null),
                        n.path("stack").asText(null)));
            }
            return out;
        } catch (Exception e) {
            return List.of(new JobError(null, 0, "UnreadableErrors", e.getMessage(), json));
        }
    }
}
