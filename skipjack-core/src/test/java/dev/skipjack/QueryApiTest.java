package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-25: finding jobs by queue, kind, state, creation time and args, page by page by keyset, and
 * counting them per queue and state. Expected results are computed with independent plain SQL
 * ({@code args->>'userId'}, not the {@code @>} the query API uses) over rows inserted directly.
 */
class QueryApiTest extends DatabaseTest {

    private static final int ROWS = 100_000;

    private SkipjackAdmin admin() {
        return client(builder()).admin();
    }

    /** 100,000 finished jobs: even n are send-email on queue mail, odd n resize on media; n % 3 = 0 discarded. */
    private void insertHundredThousand() {
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, finished_at, created_at)"
                + " SELECT CASE WHEN n % 2 = 0 THEN 'mail' ELSE 'media' END,"
                + "        CASE WHEN n % 2 = 0 THEN 'send-email' ELSE 'resize' END,"
                + "        jsonb_build_object('userId', n % 50, 'n', n, 'tags', jsonb_build_array('t' || (n % 4))),"
                + "        CASE WHEN n % 3 = 0 THEN 'discarded' ELSE 'completed' END,"
                + "        now(), now() - (" + ROWS + " - n) * interval '1 second'"
                + " FROM generate_series(1, " + ROWS + ") AS n");
        execute("ANALYZE " + jobsTable());
    }

    private List<Long> idsBySql(String where) {
        List<Long> ids = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT id FROM " + jobsTable() + " WHERE " + where + " ORDER BY id DESC");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return ids;
    }

    /** Follows nextCursor from the first page to the last; checks every page's size on the way. */
    private List<Long> allPages(SkipjackAdmin admin, JobQuery query) {
        List<Long> ids = new ArrayList<>();
        JobPage page = admin.jobs(query);
        while (true) {
            page.jobs().forEach(j -> ids.add(j.id()));
            if (!page.hasMore()) {
                assertThat(page.jobs().size()).isLessThanOrEqualTo(query.limit());
                return ids;
            }
            assertThat(page.jobs()).hasSize(query.limit());
            assertThat(page.nextCursor()).isEqualTo(page.jobs().get(page.jobs().size() - 1).id());
            page = admin.jobs(query.after(page.nextCursor()));
        }
    }

    @Test
    void keysetPagesCoverHundredThousandJobsOnceEachNewestFirst() {
        SkipjackAdmin admin = admin();
        insertHundredThousand();

        long started = System.nanoTime();
        List<Long> ids = allPages(admin, JobQuery.all().limit(2_000));
        long millis = (System.nanoTime() - started) / 1_000_000;

        assertThat(ids).hasSize(ROWS);
        assertThat(new HashSet<>(ids)).hasSize(ROWS);
        assertThat(ids).isEqualTo(idsBySql("true"));
        System.out.println("RESULT query_api_keyset_pages rows=" + ROWS + " page=2000 pages=50 total_ms=" + millis);

        // A deep page costs what the first one does: it starts from the cursor in the primary key.
        JobQuery deep = JobQuery.all().limit(50).after(ids.get(ROWS - 1_000));
        assertThat(admin.jobs(deep).jobs()).extracting(JobInfo::id).isEqualTo(ids.subList(ROWS - 999, ROWS - 949));
    }

    @Test
    void aDeepPageWalksThePrimaryKeyBackwardsFromTheCursorWithoutSortingOrSkipping() throws SQLException {
        admin();
        insertHundredThousand();
        String listJobs = dev.skipjack.internal.sql.Dialect.POSTGRES.statements(
                new dev.skipjack.internal.sql.TableNames(schema, "skipjack_"), new DatabaseClock()).get("list_jobs");
        StringBuilder plan = new StringBuilder();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + listJobs)) {
            JobQuery deep = JobQuery.all().after(1_000L).limit(50);
            int next = SkipjackAdmin.bindFilter(dev.skipjack.internal.sql.Dialect.POSTGRES, ps, deep);
            ps.setInt(next, deep.limit() + 1);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        assertThat(plan.toString()).as(plan.toString())
                // 51 rows read for a page of 50 (one more says whether there is a next page), from the cursor on.
                // PostgreSQL 18 prints row counts with two decimals (51.00).
                .containsPattern("Index Scan Backward using skipjack_jobs_pkey on skipjack_jobs \\(actual rows=51(\\.00)? loops=1\\)")
                .contains("Index Cond: (id < '1000'::bigint)")
                .doesNotContain("Sort").doesNotContain("Seq Scan");
    }

    @Test
    void jsonArgsFilterFindsDiscardedSendEmailJobsOfOneUser() {
        SkipjackAdmin admin = admin();
        insertHundredThousand();
        List<Long> expected = idsBySql("kind = 'send-email' AND state = 'discarded' AND (args->>'userId')::int = 42");
        assertThat(expected).hasSizeGreaterThan(600); // n ≡ 0 (mod 6) and n ≡ 42 (mod 50): 667 of 100,000

        JobQuery query = JobQuery.all().kind("send-email").state(JobState.DISCARDED).argsContain("{\"userId\": 42}").limit(100);
        assertThat(allPages(admin, query)).isEqualTo(expected);

        // Containment matches inside arrays, and a string "42" is not the number 42.
        assertThat(allPages(admin, JobQuery.all().argsContain("{\"tags\": [\"t3\"], \"userId\": 7}").limit(500)))
                .isEqualTo(idsBySql("args->'tags'->>0 = 't3' AND (args->>'userId')::int = 7"));
        assertThat(admin.jobs(JobQuery.all().argsContain("{\"userId\": \"42\"}")).jobs()).isEmpty();
    }

    @Test
    void queueStateAndTimeFiltersCombine() {
        SkipjackAdmin admin = admin();
        insertHundredThousand();
        Instant from = queryInstant("SELECT min(created_at) + interval '90000 seconds' FROM " + jobsTable());
        Instant before = from.plusSeconds(1_000);

        JobQuery query = JobQuery.all().queue("media").state(JobState.COMPLETED, JobState.DISCARDED)
                .createdFrom(from).createdBefore(before).limit(77);
        List<Long> expected = idsBySql("queue = 'media' AND created_at >= '" + from + "'::timestamptz AND created_at < '"
                + before + "'::timestamptz");
        assertThat(expected).hasSize(500);
        assertThat(allPages(admin, query)).isEqualTo(expected);
        assertThat(admin.jobs(JobQuery.all().queue("nope")).jobs()).isEmpty();
    }

    @Test
    void countsPerQueueAndStateIncludePausedQueuesWithoutJobs() {
        SkipjackAdmin admin = admin();
        insertHundredThousand();
        admin.pause("idle");

        List<QueueInfo> queues = admin.queues();
        assertThat(queues).extracting(QueueInfo::name).containsExactly("idle", "mail", "media");
        QueueInfo mail = queues.get(1);
        assertThat(mail.paused()).isFalse();
        assertThat(mail.count(JobState.DISCARDED)).isEqualTo(queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE queue = 'mail' AND state = 'discarded'"));
        assertThat(mail.count(JobState.COMPLETED)).isEqualTo(ROWS / 2 - mail.count(JobState.DISCARDED));
        assertThat(mail.count(JobState.AVAILABLE)).isZero();
        assertThat(queues.get(0).paused()).isTrue();
        assertThat(queues.get(0).total()).isZero();
        assertThat(admin.countByState().get(JobState.DISCARDED)).isEqualTo(ROWS / 3);
    }

    @Test
    void throughputCountsFinishedJobsPerBucket() {
        SkipjackAdmin admin = admin();
        execute("INSERT INTO " + jobsTable() + " (queue, kind, state, finished_at)"
                + " SELECT 'q', 'k', s, now() - m * interval '1 minute'"
                + " FROM (VALUES ('completed', 5), ('completed', 5), ('discarded', 5), ('cancelled', 30), ('completed', 90)) AS v(s, m)");

        List<ThroughputBucket> buckets = admin.throughput(Duration.ofHours(1), Duration.ofMinutes(1));
        assertThat(buckets).hasSize(60);
        assertThat(buckets.stream().mapToLong(ThroughputBucket::completed).sum()).isEqualTo(2); // the 90-minute-old one is out
        assertThat(buckets.stream().mapToLong(ThroughputBucket::discarded).sum()).isEqualTo(1);
        assertThat(buckets.stream().mapToLong(ThroughputBucket::cancelled).sum()).isEqualTo(1);
        assertThat(buckets.get(0).start()).isBefore(buckets.get(59).start());
    }

    @Test
    void badFiltersAreRefusedWhereTheyAreBuilt() {
        assertThatThrownBy(() -> JobQuery.all().argsContain("{userId: 42")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> JobQuery.all().argsContain("42")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("object or array");
        assertThatThrownBy(() -> JobQuery.all().queue("Bad Queue")).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> JobQuery.all().kind("1; drop table")).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> JobQuery.all().limit(0)).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> JobQuery.all().limit(JobQuery.MAX_LIMIT + 1)).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> JobQuery.all().after(0L)).isInstanceOf(InvalidOptionException.class);
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        assertThatThrownBy(() -> JobQuery.all().createdFrom(t).createdBefore(t)).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> JobQuery.all().state()).isInstanceOf(InvalidOptionException.class);
    }

    private Instant queryInstant(String sql) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getTimestamp(1).toInstant();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
