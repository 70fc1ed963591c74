package dev.skipjack;

import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.testing.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-1 and F-19: the claim statement is served by the partial claim index, whatever the table holds.
 * With a million finished rows beside a few available ones, the planner must walk
 * jobs_claim_idx and never scan the table.
 */
class ClaimIndexTest extends DatabaseTest {

    @Test
    void claimUsesThePartialIndexWithAMillionTerminalRows() throws Exception {
        client(builder().kind("k", Object.class));
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt, finished_at)"
                + " SELECT 'default', 'k', '{}', CASE WHEN g % 10 = 0 THEN 'discarded' ELSE 'completed' END, 1, now()"
                + " FROM generate_series(1, 1000000) g");
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args) SELECT 'default', 'k', '{}' FROM generate_series(1, 100)");
        execute("ANALYZE " + jobsTable());

        String claim = new SqlStatements("postgres", new TableNames(schema, "skipjack_")).get("claim");
        String plan = explain(claim);

        assertThat(plan).contains("skipjack_jobs_claim_idx");
        assertThat(plan).doesNotContain("Seq Scan");
    }

    private String explain(String sql) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                // A generic plan is what a prepared statement ends up with after a few executions.
                s.execute("SET LOCAL plan_cache_mode = force_generic_plan");
            }
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql.replaceAll("(?m)^--.*$", ""))) {
                ps.setString(1, "default");
                ps.setArray(2, c.createArrayOf("text", new String[0]));
                ps.setInt(3, 50);
                ps.setString(4, "explain-worker");
                ps.setLong(5, 15_000);
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
