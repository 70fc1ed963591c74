package dev.skipjack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A job row read with plain SQL, independently of Skipjack's own read path, for assertions in the
 * behaviour tests. Times are the database's.
 */
record JobRow(long id, String queue, String kind, String argsJson, int priority, String state, Instant runAt,
              int attempt, int maxAttempts, List<ErrorEntry> errors, String claimedBy, Instant leaseUntil,
              Instant createdAt, Instant attemptedAt, Instant finishedAt) {

    /** One entry of the errors column. */
    record ErrorEntry(Instant at, int attempt, String errorClass, String message, String stack, String worker) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** On PostgreSQL the JSON columns are read as text; on the MySQL family they are text already. */
    private static final String COLUMNS = "id, queue, kind, args{{text}}, priority, state, run_at, attempt, max_attempts,"
            + " errors{{text}}, claimed_by, lease_until, created_at, attempted_at, finished_at";

    /** The row with this id; fails when there is none. */
    static JobRow load(DataSource ds, String schema, long id) {
        List<JobRow> rows = query(ds, "SELECT " + COLUMNS + " FROM {{jobs}} WHERE id = ?", schema, id);
        if (rows.isEmpty()) {
            throw new AssertionError("no job row with id " + id);
        }
        return rows.get(0);
    }

    /** Every row of the jobs table, by id. */
    static List<JobRow> all(DataSource ds, String schema) {
        return query(ds, "SELECT " + COLUMNS + " FROM {{jobs}} ORDER BY id", schema);
    }

    /** Whether {@code c} is a PostgreSQL connection (else the MySQL family or SQLite). */
    private static boolean postgres(Connection c) throws SQLException {
        return c.getMetaData().getURL().startsWith("jdbc:postgresql:");
    }

    /** Whether {@code c} is a SQLite connection: times are INTEGER epoch microseconds there. */
    private static boolean sqlite(Connection c) throws SQLException {
        return c.getMetaData().getURL().startsWith("jdbc:sqlite:");
    }

    /** The database's clock, now. */
    static Instant dbNow(DataSource ds) {
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement(postgres(c) ? "SELECT clock_timestamp()"
                     : sqlite(c) ? "SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000"
                     : "SELECT UTC_TIMESTAMP(6)");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return instant(rs, 1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** True when the state is terminal. */
    boolean isTerminal() {
        return state.equals("completed") || state.equals("discarded") || state.equals("cancelled");
    }

    ErrorEntry lastError() {
        return errors.isEmpty() ? null : errors.get(errors.size() - 1);
    }

    /**
     * Checks {@code condition} over and over for {@code period} and fails as soon as it does not hold.
     * For negative guarantees ("nothing claims this job"), which can only be observed over time.
     */
    static void holdsFor(String what, Duration period, BooleanSupplier condition) {
        long end = System.nanoTime() + period.toNanos();
        do {
            if (!condition.getAsBoolean()) {
                throw new AssertionError("expected to hold for " + period + " but did not: " + what);
            }
            try {
                Thread.sleep(20); // sampling period of an observation, not a synchronization
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while observing " + what);
            }
        } while (System.nanoTime() < end);
        if (!condition.getAsBoolean()) {
            throw new AssertionError("expected to hold for " + period + " but did not: " + what);
        }
    }

    private static List<JobRow> query(DataSource ds, String template, String schema, Object... params) {
        String sql = template;
        try (Connection c = ds.getConnection()) {
            boolean pg = postgres(c);
            sql = template.replace("{{text}}", pg ? "::text" : "")
                    .replace("{{jobs}}", pg || sqlite(c) ? "\"" + schema + "\".skipjack_jobs" : "`" + schema + "`.skipjack_jobs");
            return query(c, sql, params);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static List<JobRow> query(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            List<JobRow> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new JobRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
                            rs.getString(6), instant(rs, 7), rs.getInt(8), rs.getInt(9), errors(rs.getString(10)),
                            rs.getString(11), instant(rs, 12), instant(rs, 13), instant(rs, 14), instant(rs, 15)));
                }
            }
            return out;
        }
    }

    /** timestamptz on PostgreSQL; a DATETIME in UTC on the MySQL family; epoch microseconds on SQLite. */
    private static Instant instant(ResultSet rs, int column) throws SQLException {
        if (postgres(rs.getStatement().getConnection())) {
            OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
            return t == null ? null : t.toInstant();
        }
        if (sqlite(rs.getStatement().getConnection())) {
            long micros = rs.getLong(column);
            return rs.wasNull() ? null : Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS);
        }
        java.time.LocalDateTime t = rs.getObject(column, java.time.LocalDateTime.class);
        return t == null ? null : t.toInstant(java.time.ZoneOffset.UTC);
    }

    private static List<ErrorEntry> errors(String json) {
        try {
            List<ErrorEntry> out = new ArrayList<>();
            for (JsonNode n : JSON.readTree(json)) {
                out.add(new ErrorEntry(n.hasNonNull("at") ? OffsetDateTime.parse(n.get("at").asText()).toInstant() : null,
                        n.path("attempt").asInt(-1), text(n, "class"), text(n, "message"), text(n, "stack"),
                        text(n, "worker")));
            }
            return out;
        } catch (Exception e) {
            throw new IllegalStateException("unreadable errors column: " + json, e);
        }
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asText() : null;
    }
}
