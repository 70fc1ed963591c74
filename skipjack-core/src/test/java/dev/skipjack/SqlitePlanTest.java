package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SQLite's plans for the hot statements (EXPLAIN QUERY PLAN): the claim reads the partial claim
 * index in claim order (no temporary b-tree for the ORDER BY, no scan of the jobs table), and
 * the batch updates of running jobs find each job by primary key instead of scanning.
 */
class SqlitePlanTest extends DatabaseTest {

    @Override
    protected TestBackend backend() {
        return TestBackend.SQLITE;
    }

    @BeforeEach
    void jobsInSeveralQueuesAndStates() {
        Skipjack s = client(builder());
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            requests.add(JobRequest.of(JobKind.of("k", Integer.class), i,
                    EnqueueOptions.defaults().withQueue(i % 2 == 0 ? "claimed" : "other").withPriority(i % 5)));
        }
        s.enqueueAll(requests);
        execute("UPDATE " + jobsTable() + " SET state = 'completed', finished_at = 1 WHERE id % 4 = 1");
        execute("ANALYZE");
    }

    private String plan(String statement) throws SQLException {
        String sql = Dialect.SQLITE.statements(new TableNames(schema, "skipjack_"), new DatabaseClock()).get(statement);
        StringBuilder plan = new StringBuilder();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
            while (rs.next()) {
                plan.append(rs.getString(4)).append('\n');
            }
        }
        System.out.println("EXPLAIN QUERY PLAN " + statement + ":\n" + plan);
        return plan.toString();
    }

    @Test
    void claimReadsTheClaimIndexInClaimOrder() throws SQLException {
        for (String claim : List.of("claim", "claim_transactional")) {
            String plan = plan(claim);
            assertThat(plan).contains("USING INDEX skipjack_jobs_claim_idx (queue=?)")
                    .contains("USING INTEGER PRIMARY KEY (rowid=?)")
                    .doesNotContain("TEMP B-TREE")
                    .doesNotContainPattern("SCAN (main\\.)?skipjack_jobs");
        }
    }

    @Test
    void batchUpdatesOfRunningJobsReadEachJobByPrimaryKey() throws SQLException {
        for (String batch : List.of("complete_jobs", "record_outcomes", "extend_leases", "cancel_jobs", "delete_jobs")) {
            assertThat(plan(batch)).as(batch).contains("USING INTEGER PRIMARY KEY (rowid=?)")
                    .doesNotContainPattern("SCAN (main\\.)?skipjack_jobs");
        }
    }

    @Test
    void maintenanceReadsItsPartialIndexesAndChangesByPrimaryKey() throws SQLException {
        for (String[] statement : new String[][] {{"promote_due_jobs", "skipjack_jobs_due_idx"},
                {"rescue_expired_leases", "skipjack_jobs_lease_idx"}, {"prune_jobs", "skipjack_jobs_finished_idx"}}) {
            assertThat(plan(statement[0])).as(statement[0]).contains("INDEX " + statement[1] + " (")
                    .contains("USING INTEGER PRIMARY KEY (rowid=?)")
                    .doesNotContain("TEMP B-TREE")
                    .doesNotContainPattern("SCAN (main\\.)?skipjack_jobs");
        }
    }
}
