package dev.skipjack;

import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.testing.DatabaseTest;
import dev.skipjack.testing.Plans;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-3 and F-17 at scale: the statements that update batches of running jobs (acknowledgements,
 * outcomes, heartbeats) look each job up by primary key, whatever the statistics say. Statistics
 * taken while few jobs ran used to make the planner walk the partial lease index (all running
 * jobs) once per acknowledged job: with thousands running, one heartbeat kept a backend busy for
 * minutes and blocked the completer behind its row locks.
 */
class BatchUpdatePlanTest extends DatabaseTest {

    private static final int RUNNING = 20_000;
    private static final int BATCH = 5_000;

    @ParameterizedTest(name = "{0}, {1} plan")
    @CsvSource({
            "complete_jobs, generic", "complete_jobs, custom",
            "record_outcomes, generic", "record_outcomes, custom",
            "extend_leases, generic", "extend_leases, custom"})
    void batchUpdatesOfRunningJobsUseThePrimaryKeyWithStaleStatistics(String statement, String planKind) throws Exception {
        client(builder().kind("k", Object.class));
        // Statistics say no job runs...
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt, finished_at)"
                + " SELECT 'default', 'k', '{}', 'completed', 1, now() FROM generate_series(1, " + RUNNING + ")");
        execute("ANALYZE " + jobsTable());
        // ...and then all of them do.
        execute("UPDATE " + jobsTable() + " SET state = 'running', finished_at = NULL, claimed_by = 'w',"
                + " lease_until = now() + interval '1 minute'");

        String plan = planKind.equals("generic") ? genericPlan(statement) : planWithValues(statement);

        assertThat(plan).contains("skipjack_jobs_pkey");
        assertThat(plan).doesNotContain("skipjack_jobs_lease_idx").doesNotContain("Seq Scan");
    }

    private String sql(String statement) {
        return new SqlStatements("postgres", new TableNames(schema, "skipjack_")).get(statement);
    }

    /** The generic plan, which the driver's prepared statements settle on after a few executions. */
    private String genericPlan(String statement) throws Exception {
        String ids = "'{" + LongStream.rangeClosed(1, BATCH).mapToObj(Long::toString).collect(Collectors.joining(",")) + "}'";
        String ones = "'{" + IntStream.range(0, BATCH).mapToObj(i -> "1").collect(Collectors.joining(",")) + "}'";
        return switch (statement) {
            case "complete_jobs" -> Plans.generic(dataSource, sql(statement), "bigint[], int[]", ids + ", " + ones);
            case "extend_leases" -> Plans.generic(dataSource, sql(statement), "bigint[], int[], text, bigint",
                    ids + ", " + ones + ", 'w', 15000");
            case "record_outcomes" -> Plans.generic(dataSource, sql(statement), "bigint[], int[], text[], bigint[], int[], text[]",
                    ids + ", " + ones + ", '{}', '{}', '{}', '{}'");
            default -> throw new IllegalArgumentException(statement);
        };
    }

    /** EXPLAIN with bound parameters: planned with their values, like the first executions. */
    private String planWithValues(String statement) throws Exception {
        String sql = sql(statement);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql.replaceAll("(?m)^--.*$", ""))) {
                Long[] ids = LongStream.rangeClosed(1, BATCH).boxed().toArray(Long[]::new);
                Integer[] attempts = IntStream.range(0, BATCH).map(i -> 1).boxed().toArray(Integer[]::new);
                ps.setArray(1, c.createArrayOf("bigint", ids));
                ps.setArray(2, c.createArrayOf("int4", attempts));
                switch (statement) {
                    case "extend_leases" -> {
                        ps.setString(3, "w");
                        ps.setLong(4, 15_000);
                    }
                    case "record_outcomes" -> {
                        ps.setArray(3, c.createArrayOf("text", IntStream.range(0, BATCH).mapToObj(i -> "retryable").toArray()));
                        ps.setArray(4, c.createArrayOf("bigint", LongStream.range(0, BATCH).boxed().toArray()));
                        ps.setArray(5, c.createArrayOf("int4", attempts));
                        ps.setArray(6, c.createArrayOf("text", new String[BATCH]));
                    }
                    default -> {
                    }
                }
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                return plan.toString();
            } finally {
                c.rollback();
            }
        }
    }
}
