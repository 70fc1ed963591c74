package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MySQL-family claim reads the claim index in claim order: InnoDB locks every index record a
 * locking read scans, so a filesort (or a scan of PRIMARY) would lock every available job of the
 * queue and the next claimer would find nothing. Checked with EXPLAIN, and by two claimers whose
 * transactions overlap.
 */
class ClaimPlanTest extends DatabaseTest {

    private static final int AVAILABLE = 2_000;

    @Override
    protected TestBackend backend() {
        return TestBackend.MARIADB;
    }

    private String claim;

    @BeforeEach
    void jobsInSeveralQueuesAndStates() {
        Skipjack s = client(builder());
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < AVAILABLE; i++) {
            requests.add(JobRequest.of(JobKind.of("k", Integer.class), i,
                    EnqueueOptions.defaults().withQueue(i % 2 == 0 ? "claimed" : "other").withPriority(i % 5)));
        }
        s.enqueueAll(requests);
        // Finished history the claim must not wade through.
        execute("UPDATE " + jobsTable() + " SET state = 'completed', finished_at = UTC_TIMESTAMP(6) WHERE id % 4 = 1");
        execute("ANALYZE TABLE " + jobsTable());
        claim = Dialect.MARIADB.statements(new TableNames(schema, "skipjack_"), new DatabaseClock()).get("claim");
    }

    @Test
    void claimWalksTheClaimIndexInOrderWithoutFilesort() throws SQLException {
        Map<String, String> plan = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("EXPLAIN " + claim)) {
            bindClaim(ps, 10);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                for (String column : List.of("table", "type", "key", "rows", "Extra")) {
                    plan.put(column, rs.getString(column));
                }
                assertThat(rs.next()).as("one table in the plan").isFalse();
            }
        }
        System.out.println("claim plan on " + backend() + ": " + plan);
        assertThat(plan.get("key")).isEqualTo("skipjack_jobs_claim_idx");
        assertThat(plan.get("type")).as(plan.toString()).isEqualTo("ref");
        assertThat(plan.get("Extra")).as(plan.toString()).doesNotContain("filesort").doesNotContain("temporary");
    }

    @Test
    void claimApplyChangesTheClaimedJobsByPrimaryKey() throws SQLException {
        String apply = Dialect.MARIADB.statements(new TableNames(schema, "skipjack_"), new DatabaseClock()).get("claim_apply");
        List<String> jobsAccess = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("EXPLAIN " + apply)) {
            ps.setString(1, "[2, 4, 6]");
            ps.setString(2, "w");
            ps.setLong(3, 1000);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if ("j".equals(rs.getString("table"))) {
                        jobsAccess.add(rs.getString("type") + " " + rs.getString("key"));
                    }
                }
            }
        }
        System.out.println("claim_apply access to jobs on " + backend() + ": " + jobsAccess);
        // One primary-key lookup per claimed id, never a scan that would lock other claimers' rows.
        assertThat(jobsAccess).containsExactly("eq_ref PRIMARY");
    }

    @Test
    void aSecondClaimerGetsTheNextJobsWhileTheFirstHoldsItsLocks() throws SQLException {
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection()) {
            for (Connection c : List.of(first, second)) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                c.setAutoCommit(false);
            }
            try {
                List<Long> a = claimIds(first, 5);
                List<Long> b = claimIds(second, 5);
                assertThat(a).hasSize(5);
                assertThat(b).as("not blocked, not empty: the first claimer locked only its own rows").hasSize(5);
                assertThat(b).doesNotContainAnyElementsOf(a);
            } finally {
                first.rollback();
                second.rollback();
            }
        }
    }

    private List<Long> claimIds(Connection c, int limit) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(claim)) {
            bindClaim(ps, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    private static void bindClaim(PreparedStatement ps, int limit) throws SQLException {
        ps.setString(1, "claimed");
        ps.setString(2, "[]");
        ps.setInt(3, limit);
    }
}
