package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.Plans;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-19: pruning stays cheap on a big table. Each batch of prune_jobs.sql walks the partial
 * jobs_finished_idx for one state in finish order and stops after its limit; it never scans the
 * table, whichever state it prunes and however the finished rows are split between states.
 */
class PruneIndexTest extends DatabaseTest {

    @Test
    void pruneStatementUsesThePartialFinishedIndex() throws Exception {
        client(builder().kind(JobKind.of("k", Object.class)));
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt, finished_at)"
                + " SELECT 'default', 'k', '{}', CASE WHEN g % 10 = 0 THEN 'discarded' WHEN g % 10 = 1 THEN 'cancelled'"
                + " ELSE 'completed' END, 1, now() - (g % 1000) * interval '1 minute'"
                + " FROM generate_series(1, 300000) g");
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args) SELECT 'default', 'k', '{}' FROM generate_series(1, 1000)");
        execute("ANALYZE " + jobsTable());

        String prune = Dialect.POSTGRES.statements(new TableNames(schema, "skipjack_"), new DatabaseClock()).get("prune_jobs");
        for (JobState state : new JobState[] {JobState.COMPLETED, JobState.DISCARDED, JobState.CANCELLED}) {
            String plan = explain(prune, state);
            assertThat(plan).as("plan for " + state).contains("skipjack_jobs_finished_idx");
            assertThat(plan).as("plan for " + state).doesNotContain("Seq Scan");
        }
    }

    private String explain(String sql, JobState state) throws Exception {
        return Plans.generic(dataSource, sql, "text, bigint, int", "'" + state.dbValue() + "', 3600000, 1000");
    }
}
