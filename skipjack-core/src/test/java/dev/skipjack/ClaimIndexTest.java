package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.Plans;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-1 and F-19: the claim statement is served by the partial claim index, whatever the table holds.
 * With a million finished rows beside a few available ones, the planner must walk
 * jobs_claim_idx and never scan the table.
 */
class ClaimIndexTest extends DatabaseTest {

    @Test
    void claimUsesThePartialIndexWithAMillionTerminalRows() throws Exception {
        client(builder().kind(JobKind.of("k", Object.class)));
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt, finished_at)"
                + " SELECT 'default', 'k', '{}', CASE WHEN g % 10 = 0 THEN 'discarded' ELSE 'completed' END, 1, now()"
                + " FROM generate_series(1, 1000000) g");
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args) SELECT 'default', 'k', '{}' FROM generate_series(1, 100)");
        execute("ANALYZE " + jobsTable());

        String claim = Dialect.POSTGRES.statements(new TableNames(schema, "skipjack_"), new DatabaseClock()).get("claim");
        String plan = explain(claim);

        assertThat(plan).contains("skipjack_jobs_claim_idx");
        assertThat(plan).doesNotContain("Seq Scan");
    }

    /** The generic plan: what the fetcher's prepared claim settles on after a few executions. */
    private String explain(String sql) throws Exception {
        return Plans.generic(dataSource, sql, "text, text[], int, text, bigint", "'default', '{}', 50, 'explain-worker', 15000");
    }
}
