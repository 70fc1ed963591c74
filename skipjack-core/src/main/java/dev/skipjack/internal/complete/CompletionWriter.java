package dev.skipjack.internal.complete;

import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Writes completions: plain completions with complete_jobs.sql, everything else with
 * record_outcomes.sql, one statement each per batch. Both are guarded by (id, attempt, running),
 * so writing the same completion twice, or after the job was rescued, changes nothing.
 */
public final class CompletionWriter {

    private static final Comparator<Completion> BY_ID = (a, b) -> {
        int c = Long.compare(a.id(), b.id());
        return c != 0 ? c : Integer.compare(a.attempt(), b.attempt());
    };

    private final SqlStatements sql;

    public CompletionWriter(SqlStatements sql) {
        this.sql = sql;
    }

    /** Writes the batch on {@code c} (in its current transaction mode); returns rows changed. */
    public int write(Connection c, List<Completion> batch) throws SQLException {
        List<Completion> plain = new ArrayList<>(batch.size());
        List<Completion> other = new ArrayList<>();
        for (Completion completion : batch) {
            (completion.isPlainCompletion() ? plain : other).add(completion);
        }
        // The statements lock rows in the order given: ascending ids, like every batch update of
        // running jobs, so two of them touching the same jobs wait instead of deadlocking.
        plain.sort(BY_ID);
        other.sort(BY_ID);
        int changed = 0;
        if (!plain.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("complete_jobs"))) {
                List<Long> ids = plain.stream().map(Completion::id).toList();
                Params.of().list(ListType.BIGINT, ids)
                        .list(ListType.INTEGER, plain.stream().map(Completion::attempt).toList())
                        .list(ListType.BIGINT, ids)
                        .bind(ps, 1, sql.dialect());
                changed += ps.executeUpdate();
            }
        }
        if (!other.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("record_outcomes"))) {
                Params.of().list(ListType.BIGINT, other.stream().map(Completion::id).toList())
                        .list(ListType.INTEGER, other.stream().map(Completion::attempt).toList())
                        .list(ListType.TEXT, other.stream().map(Completion::state).toList())
                        .list(ListType.BIGINT, other.stream().map(Completion::delayMillis).toList())
                        .list(ListType.INTEGER, other.stream().map(Completion::extraAttempts).toList())
                        .list(ListType.TEXT, other.stream().map(Completion::errorJson).toList())
                        .bind(ps, 1, sql.dialect());
                changed += ps.executeUpdate();
            }
        }
        return changed;
    }

    /**
     * Records the outcome of a transactional execution whose transaction was lost (see
     * record_lost_attempt.sql). Returns false when the job was claimed again meanwhile, or the
     * lost transaction committed after all.
     */
    public boolean writeLostAttempt(Connection c, Completion lost, String workerId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("record_lost_attempt"))) {
            ps.setLong(1, lost.id());
            ps.setInt(2, lost.attempt());
            ps.setString(3, lost.state());
            if (lost.delayMillis() == null) {
                ps.setNull(4, java.sql.Types.BIGINT);
            } else {
                ps.setLong(4, lost.delayMillis());
            }
            ps.setString(5, workerId);
            ps.setString(6, lost.errorJson());
            return ps.executeUpdate() == 1;
        }
    }
}
