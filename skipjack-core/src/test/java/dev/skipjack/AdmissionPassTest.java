package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.Plans;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-12, F-13: the admission pass (due_concurrency_keys.sql) finds the keys with a waiting job by
 * stepping from one key to the next in the index, so its cost follows the number of keys, not the
 * number of waiting jobs: with a backlog of a million waiting keyed jobs, reading every due row
 * to find their keys took 250 ms of PostgreSQL's CPU and seconds of MariaDB's per pass, every
 * second on every node. It says for each key, in key order from a cursor, whether one of its
 * waiting jobs is due.
 */
class AdmissionPassTest extends EveryBackendTest {

    private static final int KEYS = 40;
    private static final int JOBS_PER_KEY = 500;

    private String statement;

    @BeforeEach
    void waitingBacklog() {
        client(builder().kind(JobKind.of("k", Object.class)));
        statement = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock())
                .get("due_concurrency_keys");
        // 20,000 waiting jobs, due, over keys key:k00 to key:k39; key:later's only job is not due yet.
        String due = nowPlus(java.time.Duration.ofMinutes(-1));
        String later = nowPlus(java.time.Duration.ofHours(1));
        String key = switch (backend()) {
            case POSTGRESQL -> "'key:k' || lpad((series % " + KEYS + ")::text, 2, '0')";
            case SQLITE -> "'key:k' || substr('0' || (x % " + KEYS + "), -2)";
            default -> "CONCAT('key:k', LPAD(x % " + KEYS + ", 2, '0'))";
        };
        String columns = " (queue, kind, args, state, run_at, concurrency_key, concurrency_max, concurrency_order)";
        int rows = KEYS * JOBS_PER_KEY;
        String series = switch (backend()) {
            case POSTGRESQL -> "generate_series(1, " + rows + ") AS series";
            case SQLITE -> backend().series(rows);
            // Numbered rows (the shared series repeats one value).
            default -> "JSON_TABLE(CONCAT('[', REPEAT('1,', " + (rows - 1) + "), '1]'), '$[*]' COLUMNS (x FOR ORDINALITY)) AS series";
        };
        execute("INSERT INTO " + jobsTable() + columns + " SELECT 'default', 'k', '{}', 'waiting', " + due + ", "
                + key + ", 1, 'priority' FROM " + series);
        assertThat(queryLong("SELECT count(DISTINCT concurrency_key) FROM " + jobsTable())).isEqualTo(KEYS);
        execute("INSERT INTO " + jobsTable() + columns + " VALUES ('default', 'k', '{}', 'waiting', " + later
                + ", 'key:later', 1, 'priority')");
        execute(backend() == TestBackend.MARIADB || backend() == TestBackend.MYSQL ? "ANALYZE TABLE " + jobsTable() : "ANALYZE");
    }

    /** The pass's rows from {@code cursor}: each key with 1 when a waiting job of it is due, else 0. */
    private List<String> pass(String cursor, int keys) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(statement)) {
            ps.setString(1, cursor);
            ps.setInt(2, keys);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + "=" + rs.getInt(2));
                }
            }
        }
        return out;
    }

    @Test
    void thePassListsTheKeysWithAWaitingJobInKeyOrderFromItsCursorAndSaysWhichAreDue() throws SQLException {
        List<String> first = pass("", 3);
        assertThat(first).containsExactly("key:k00=1", "key:k01=1", "key:k02=1");
        assertThat(pass("key:k02", 3)).containsExactly("key:k03=1", "key:k04=1", "key:k05=1");
        List<String> rest = pass("key:k37", 500);
        assertThat(rest).containsExactly("key:k38=1", "key:k39=1", "key:later=0");
        assertThat(pass("key:later", 500)).isEmpty();
    }

    @Test
    void thePassStepsFromKeyToKeyInsteadOfReadingTheWaitingJobs() throws SQLException {
        String plan = plan();
        System.out.println("plan of due_concurrency_keys.sql on " + backend() + ":\n" + plan);
        switch (backend()) {
            case POSTGRESQL -> {
                // The steps; whether a key has a due job is the planner's choice on a table this small.
                int stepsEnd = plan.indexOf("CTE Scan on waiting_keys");
                String steps = stepsEnd < 0 ? plan : plan.substring(0, stepsEnd);
                assertThat(steps).contains("Recursive Union").contains("skipjack_jobs_waiting_key_idx")
                        .doesNotContain("Seq Scan");
            }
            // InnoDB's loose index scan: one dive per key.
            case MARIADB, MYSQL -> assertThat(plan).contains("Using index for group-by");
            case SQLITE -> {
                // Each step one search for the next key, in the index alone.
                assertThat(plan).contains("RECURSIVE STEP")
                        .contains("USING COVERING INDEX skipjack_jobs_waiting_key_idx (concurrency_key>?)");
                assertThat(plan.lines().filter(l -> l.startsWith("SCAN ") && l.contains("skipjack_jobs")))
                        .as("full scans of the jobs table").isEmpty();
            }
        }
    }

    private String plan() throws SQLException {
        if (backend() == TestBackend.POSTGRESQL) {
            return Plans.generic(dataSource, statement, "text, int", "'', 500");
        }
        String literal = statement.replaceAll("(?m)^--.*$", "").replaceFirst("\\?", "''").replaceFirst("\\?", "500");
        StringBuilder plan = new StringBuilder();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery((backend() == TestBackend.SQLITE ? "EXPLAIN QUERY PLAN " : "EXPLAIN ") + literal)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= columns; i++) {
                    if (backend() != TestBackend.SQLITE || i == 4) {
                        plan.append(rs.getString(i)).append(' ');
                    }
                }
                plan.append('\n');
            }
        }
        return plan.toString();
    }
}
