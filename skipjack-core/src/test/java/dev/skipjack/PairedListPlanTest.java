package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MySQL-family statements that take lists paired by position (an execution's id and attempt,
 * an outcome's fields, a job's columns, a workflow's edges and counts) read them from one
 * {@code JSON_TABLE}: the rows
 * {@link Params#rows} binds there as one JSON array. Two {@code JSON_TABLE}s joined on their
 * {@code FOR ORDINALITY} columns have no index to join by, so the join was a nested loop over
 * both, quadratic in the batch: a 2,000-job completion took 0.6 s on MariaDB 10.11 (28 ms from one
 * array of rows) and the drain reached half of the raw-SQL ceiling. Checked with EXPLAIN: one table
 * function, and the jobs (or workflows) by primary key.
 */
class PairedListPlanTest extends DatabaseTest {

    private static final int BATCH = 2_000;

    @Override
    protected TestBackend backend() {
        return TestBackend.MARIADB;
    }

    @ParameterizedTest
    @ValueSource(strings = {"complete_jobs", "record_outcomes", "extend_leases", "insert_jobs",
            "decrement_pending_deps", "count_down_workflows", "insert_job_dependencies"})
    void pairedListsAreOneTableFunctionAndJobsAreReadByPrimaryKey(String statement) throws SQLException {
        client(builder()); // migrates the schema
        String sql = Dialect.MARIADB.statements(new TableNames(schema, "skipjack_"), new DatabaseClock()).get(statement);
        List<Long> ids = new ArrayList<>();
        for (long i = 1; i <= BATCH; i++) {
            ids.add(i);
        }
        List<Integer> ones = Collections.nCopies(BATCH, 1);
        Params params = switch (statement) {
            case "complete_jobs" -> Params.of().rows(List.of(ListType.BIGINT, ListType.INTEGER), List.of(ids, ones))
                    .list(ListType.BIGINT, ids);
            case "extend_leases" -> Params.of().rows(List.of(ListType.BIGINT, ListType.INTEGER), List.of(ids, ones))
                    .text("worker");
            case "record_outcomes" -> Params.of().rows(
                    List.of(ListType.BIGINT, ListType.INTEGER, ListType.TEXT, ListType.BIGINT, ListType.INTEGER,
                            ListType.TEXT, ListType.TEXT),
                    List.of(ids, ones, Collections.nCopies(BATCH, "retryable"), Collections.nCopies(BATCH, 1000L),
                            Collections.nCopies(BATCH, 0), Collections.nCopies(BATCH, "{\"message\": \"m\"}"),
                            Collections.nCopies(BATCH, null)));
            case "decrement_pending_deps", "count_down_workflows" -> Params.of()
                    .rows(List.of(ListType.BIGINT, ListType.INTEGER), List.of(ids, ones)).list(ListType.BIGINT, ids);
            case "insert_job_dependencies" -> Params.of()
                    .rows(List.of(ListType.BIGINT, ListType.BIGINT), List.of(ids, ids));
            case "insert_jobs" -> Params.of().rows(
                    List.of(ListType.TEXT, ListType.TEXT, ListType.TEXT, ListType.SMALLINT, ListType.INTEGER,
                            ListType.BIGINT, ListType.BIGINT),
                    List.of(Collections.nCopies(BATCH, "q"), Collections.nCopies(BATCH, "k"),
                            Collections.nCopies(BATCH, "{}"), Collections.nCopies(BATCH, 0),
                            Collections.nCopies(BATCH, 3), Collections.nCopies(BATCH, null),
                            Collections.nCopies(BATCH, 500L)));
            default -> throw new IllegalArgumentException(statement);
        };
        List<String> tableFunctions = new ArrayList<>();
        List<String> jobsAccess = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            int next = params.bind(ps, 1, Dialect.MARIADB);
            if (statement.equals("extend_leases")) {
                assertThat(next).as("the rows are one parameter, then the worker id").isEqualTo(3);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String extra = String.valueOf(rs.getString("Extra"));
                    if (extra.contains("json_table")) {
                        tableFunctions.add(rs.getString("table") + " " + rs.getString("type"));
                    } else if ("j".equals(rs.getString("table")) || "w".equals(rs.getString("table"))) {
                        jobsAccess.add(rs.getString("type") + " " + rs.getString("key"));
                    }
                }
            }
        }
        System.out.println(statement + " plan on " + backend() + ": table functions " + tableFunctions + ", jobs " + jobsAccess);
        assertThat(tableFunctions).as("one JSON_TABLE, never a join of two").hasSize(1);
        if (!statement.startsWith("insert_")) {
            assertThat(jobsAccess).containsExactly("eq_ref PRIMARY");
        }
    }
}
