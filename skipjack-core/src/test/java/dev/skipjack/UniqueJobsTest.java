package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * F-10: while a job holds its unique key, enqueueing the same key returns that job and says it was
 * a duplicate; the database's unique index decides, so it holds under concurrent enqueues, in
 * callers' transactions that roll back, in one bulk call, and beside every worker transition.
 * The traps are other queues' reported bugs: a caller told a job exists when its holder rolled back
 * (oban#1087), bulk inserts that skipped uniqueness (river#161), a retry transition that collided
 * with the unique index and stopped processing (pg-boss#492).
 */
class UniqueJobsTest extends EveryBackendTest {

    record Sync(long customerId, String note) {
    }

    static final JobKind<Sync> SYNC = JobKind.of("sync", Sync.class);
    static final Duration WAIT = Duration.ofSeconds(20);

    private Skipjack producer() {
        return client(builder().kind(SYNC));
    }

    private static EnqueueOptions unique(Unique u) {
        return EnqueueOptions.defaults().withUnique(u);
    }

    private long liveJobs(String key) {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE unique_key = ? AND state IN"
                + " ('scheduled', 'available', 'running', 'retryable')", key);
    }

    private long jobs() {
        return queryLong("SELECT count(*) FROM " + jobsTable());
    }

    @Test
    void manyThreadsEnqueueingOneKeyAtOnceMakeOneJob() throws Exception {
        Skipjack s = producer();
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 10; round++) {
                String key = "customer-" + round;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<EnqueueResult>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    long customer = round;
                    results.add(pool.submit(() -> {
                        start.await();
                        return s.enqueueWithResult(JobRequest.of(SYNC, new Sync(customer, "n"), unique(Unique.byKey(key))));
                    }));
                }
                start.countDown();
                List<EnqueueResult> got = new ArrayList<>();
                for (Future<EnqueueResult> f : results) {
                    got.add(f.get(30, TimeUnit.SECONDS));
                }
                assertThat(got.stream().filter(r -> !r.duplicate())).as("inserted, round " + round).hasSize(1);
                assertThat(got.stream().map(EnqueueResult::id).distinct()).as("every caller got the one job").hasSize(1);
                assertThat(liveJobs("sync|key=" + key)).isEqualTo(1);
            }
            assertThat(jobs()).isEqualTo(10);
        } finally {
            pool.shutdownNow();
        }
    }

    /** oban#1087: a caller must never be told a job exists whose inserting transaction rolled back. */
    @Test
    void callersThatRollBackNeverLeaveAnotherCallerWithAJobThatDoesNotExist() throws Exception {
        Skipjack s = producer();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        Random random = new Random(42);
        try {
            for (int round = 0; round < 10; round++) {
                String key = "order-" + round;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Long>> committedIds = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    boolean commit = random.nextInt(3) > 0;
                    committedIds.add(pool.submit(() -> {
                        start.await();
                        try (Connection c = dataSource.getConnection()) {
                            c.setAutoCommit(false);
                            EnqueueResult r = s.enqueueWithResult(c, JobRequest.of(SYNC, new Sync(1, "x"), unique(Unique.byKey(key))));
                            if (commit) {
                                c.commit();
                                return r.id();
                            }
                            c.rollback();
                            return -1L;
                        }
                    }));
                }
                start.countDown();
                List<Long> ids = new ArrayList<>();
                for (Future<Long> f : committedIds) {
                    long id = f.get(60, TimeUnit.SECONDS);
                    if (id > 0) {
                        ids.add(id);
                    }
                }
                for (long id : ids) {
                    assertThat(s.find(id)).as("job %d a committed caller was given, round %d", id, round).isPresent();
                }
                assertThat(liveJobs("sync|key=" + key)).as("live jobs of the key, round " + round)
                        .isEqualTo(ids.isEmpty() ? 0 : 1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aDuplicateLeavesTheCallersTransactionUsable() throws Exception {
        Skipjack s = producer();
        execute("CREATE TABLE " + table("orders") + " (id bigint PRIMARY KEY)");
        long first = s.enqueue(SYNC, new Sync(7, "a"), unique(Unique.byKey("seven")));
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            EnqueueResult again = s.enqueueWithResult(c, JobRequest.of(SYNC, new Sync(7, "b"), unique(Unique.byKey("seven"))));
            assertThat(again).isEqualTo(new EnqueueResult(first, true));
            insertOrder(c, 2);
            c.commit();
        }
        assertThat(queryLong("SELECT count(*) FROM " + table("orders"))).as("the caller's own writes committed").isEqualTo(2);
        assertThat(jobs()).isEqualTo(1);
    }

    private void insertOrder(Connection c, long id) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table("orders") + " VALUES (?)")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }

    /** river#161: uniqueness holds inside one bulk call, and against jobs already there. */
    @Test
    void aBulkEnqueueKeepsUniquenessWithinItselfAndAgainstExistingJobs() {
        Skipjack s = producer();
        long existing = s.enqueue(SYNC, new Sync(1, "old"), unique(Unique.byArgs("customerId")));
        List<EnqueueResult> results = s.enqueueAllWithResults(List.of(
                JobRequest.of(SYNC, new Sync(1, "new"), unique(Unique.byArgs("customerId"))),
                JobRequest.of(SYNC, new Sync(2, "x")),
                JobRequest.of(SYNC, new Sync(3, "a"), unique(Unique.byArgs("customerId"))),
                JobRequest.of(SYNC, new Sync(3, "b"), unique(Unique.byArgs("customerId"))),
                JobRequest.of(SYNC, new Sync(2, "x"))));
        assertThat(results.get(0)).isEqualTo(new EnqueueResult(existing, true));
        assertThat(results.get(1).duplicate()).as("a job without uniqueness").isFalse();
        assertThat(results.get(2).duplicate()).isFalse();
        assertThat(results.get(3)).as("the same key twice in one call").isEqualTo(new EnqueueResult(results.get(2).id(), true));
        assertThat(results.get(4).duplicate()).isFalse();
        assertThat(results.get(4).id()).isNotEqualTo(results.get(1).id());
        assertThat(jobs()).isEqualTo(4);
        assertThat(s.enqueueAll(List.of(JobRequest.of(SYNC, new Sync(3, "c"), unique(Unique.byArgs("customerId"))))))
                .as("enqueueAll gives the holder's id for a duplicate").containsExactly(results.get(2).id());
    }

    @Test
    void argsAreComparedAsJsonWhateverTheOrderOfTheirFields() {
        JobKind<Map> raw = JobKind.of("raw", Map.class);
        Skipjack s = client(builder().kind(raw));
        Map<String, Object> ab = new LinkedHashMap<>();
        ab.put("a", 1);
        ab.put("b", Map.of("x", List.of(1, 2)));
        Map<String, Object> ba = new LinkedHashMap<>();
        ba.put("b", Map.of("x", List.of(1, 2)));
        ba.put("a", 1);
        EnqueueResult first = s.enqueueWithResult(JobRequest.of(raw, ab, unique(Unique.byArgs())));
        assertThat(s.enqueueWithResult(JobRequest.of(raw, ba, unique(Unique.byArgs()))))
                .isEqualTo(new EnqueueResult(first.id(), true));
        assertThat(s.enqueueWithResult(JobRequest.of(raw, Map.of("a", 1, "b", Map.of("x", List.of(2, 1))), unique(Unique.byArgs())))
                .duplicate()).as("array order matters").isFalse();
        assertThat(s.find(first.id()).orElseThrow().uniqueKey()).startsWith("raw|args=");
    }

    @Test
    void argsLackingACompareddFieldAreRefusedAndNothingIsInserted() {
        Skipjack s = producer();
        assertThatThrownBy(() -> s.enqueue(SYNC, new Sync(1, "x"), unique(Unique.byArgs("customer_id"))))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("no field 'customer_id'").hasMessageContaining("customerId");
        assertThat(jobs()).isZero();
    }

    @Test
    void theKeyCanIncludeTheQueueAndThePeriodOfTheDueTime() {
        Skipjack s = producer();
        Unique perQueue = Unique.byKey("k").perQueue();
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(perQueue).withQueue("a"))).duplicate()).isFalse();
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(perQueue).withQueue("b"))).duplicate()).isFalse();
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(perQueue).withQueue("a"))).duplicate()).isTrue();
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(Unique.byKey("k")).withQueue("a"))).duplicate())
                .as("without perQueue the key is another").isFalse();
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(Unique.byKey("k")).withQueue("b"))).duplicate())
                .as("without perQueue the queue does not matter").isTrue();

        Unique hourly = Unique.byKey("report").within(Duration.ofHours(1));
        Instant nine = Instant.parse("2030-01-01T09:00:00Z");
        long at9 = s.enqueue(SYNC, new Sync(1, ""), unique(hourly).withRunAt(nine));
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(hourly).withRunAt(nine.plusSeconds(3599)))))
                .isEqualTo(new EnqueueResult(at9, true));
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(hourly).withRunAt(nine.plusSeconds(3600)))).duplicate())
                .as("the next hour").isFalse();
        assertThat(s.find(at9).orElseThrow().uniqueKey()).isEqualTo("sync|period=2030-01-01T09:00:00Z|key=report");
    }

    @Test
    void aFinishedJobFreesItsKeyUnlessItAskedToKeepItWhenCompleted() {
        AtomicInteger runs = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 2).handler(SYNC, job -> {
            runs.incrementAndGet();
            return Outcome.complete();
        }));
        s.start();
        long first = s.enqueue(SYNC, new Sync(1, ""), unique(Unique.byKey("free")));
        awaitState(s, first, JobState.COMPLETED, WAIT);
        EnqueueResult again = s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(Unique.byKey("free"))));
        assertThat(again.duplicate()).as("a completed job frees its key").isFalse();
        awaitState(s, again.id(), JobState.COMPLETED, WAIT);

        Unique kept = Unique.byKey("kept").includingCompleted();
        long once = s.enqueue(SYNC, new Sync(1, ""), unique(kept));
        awaitState(s, once, JobState.COMPLETED, WAIT);
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(kept))))
                .as("a completed job that keeps its key").isEqualTo(new EnqueueResult(once, true));
        assertThat(s.admin().delete(once)).isTrue();
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(kept))).duplicate())
                .as("pruned or deleted, the key is free").isFalse();

        long scheduled = s.enqueue(SYNC, new Sync(1, ""), unique(Unique.byKey("cancelled")).withDelay(Duration.ofHours(1)));
        assertThat(s.admin().cancel(scheduled)).isTrue();
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(Unique.byKey("cancelled")).withDelay(Duration.ofHours(1))))
                .duplicate()).as("a cancelled job frees its key").isFalse();
    }

    /** pg-boss#492: every worker transition of a unique job happens beside enqueues of its key without a conflict. */
    @Test
    void workerTransitionsOfAUniqueJobNeverCollideWithItsKey() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger attempts = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 1).handler(SYNC, job -> {
            int attempt = attempts.incrementAndGet();
            if (attempt == 1) {
                return Outcome.retry(Duration.ZERO, "first attempt fails");
            }
            if (attempt == 2) {
                return Outcome.snooze(Duration.ZERO);
            }
            running.countDown();
            release.await(30, TimeUnit.SECONDS);
            return Outcome.complete();
        }));
        Unique u = Unique.byKey("busy");
        long id = s.enqueue(SYNC, new Sync(1, ""), unique(u));
        s.start();
        assertThat(running.await(30, TimeUnit.SECONDS)).as("third attempt started").isTrue();
        assertThat(s.find(id).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(u))))
                .as("a running job holds its key").isEqualTo(new EnqueueResult(id, true));
        release.countDown();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        assertThat(attempts.get()).isEqualTo(3);
        assertThat(jobs()).isEqualTo(1);
    }

    /**
     * A job running in transactional mode is claimed by an update its transaction has not committed
     * yet. PostgreSQL's ON CONFLICT waits for that transaction, then answers from what it committed
     * (here the job completed and freed its key, so a new job is inserted). On the MySQL family the
     * claim leaves the key's index entry untouched, so the enqueue answers at once: a duplicate of
     * the running job. Each answer is true when it is given; the test pins which one each backend
     * gives, as docs/unique-jobs.md describes it.
     */
    @Test
    void aDuplicateOfAJobRunningInTransactionalModeWaitsForItOnPostgresAndIsAnsweredAtOnceOnMariaDb() throws Exception {
        assumeTrue(backend != TestBackend.SQLITE, "on SQLite the running job's transaction holds the database's one"
                + " write lock, so every enqueue waits for it, unique or not (docs/backends.md)");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Skipjack s = client(builder().queue("default", 1).transactionalHandler(SYNC, (job, tx) -> {
            running.countDown();
            release.await(60, TimeUnit.SECONDS);
            return Outcome.complete();
        }));
        Unique u = Unique.byKey("busy-in-tx");
        long id = s.enqueue(SYNC, new Sync(1, ""), unique(u));
        s.start();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            assertThat(running.await(30, TimeUnit.SECONDS)).as("the job started").isTrue();
            Future<EnqueueResult> again = pool.submit(() -> s.enqueueWithResult(JobRequest.of(SYNC, new Sync(1, ""), unique(u))));
            if (backend == TestBackend.POSTGRESQL) {
                // Matched by the statement's first comment line: pg_stat_activity keeps only the first
                // track_activity_query_size bytes (1 kB by default) of a query's text.
                await("the duplicate's insert to wait for the job's transaction", WAIT, () -> queryLong(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                + " AND wait_event = 'transactionid' AND datname = current_database()"
                                + " AND query LIKE '-- Inserts one job, with what the multi-row inserts do not carry%'") == 1);
                assertThat(again).isNotDone();
                release.countDown();
                EnqueueResult r = again.get(30, TimeUnit.SECONDS);
                assertThat(r.duplicate()).as("the job completed meanwhile, which freed its key").isFalse();
                assertThat(r.id()).isNotEqualTo(id);
            } else {
                assertThat(again.get(30, TimeUnit.SECONDS)).as("answered while the job runs")
                        .isEqualTo(new EnqueueResult(id, true));
                release.countDown();
            }
            awaitState(s, id, JobState.COMPLETED, WAIT);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void retryingAFinishedJobWhoseKeyAnotherJobHoldsIsRefused() {
        Skipjack s = producer();
        Unique u = Unique.byKey("retry-me");
        long old = s.enqueue(SYNC, new Sync(1, ""), unique(u).withDelay(Duration.ofHours(1)));
        assertThat(s.admin().cancel(old)).isTrue();
        long holder = s.enqueue(SYNC, new Sync(1, ""), unique(u).withDelay(Duration.ofHours(1)));
        assertThat(s.admin().retry(old)).as("retry while another job holds the key").isFalse();
        assertThat(s.find(old).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        assertThat(s.admin().cancel(holder)).isTrue();
        assertThat(s.admin().retry(old)).as("retry once the key is free").isTrue();
        assertThat(s.find(old).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
    }

    @Test
    void badUniqueOptionsAreRefusedWhereTheyAreMade() {
        assertThatThrownBy(() -> Unique.byKey(null)).isInstanceOf(InvalidOptionException.class).hasMessageContaining("null");
        assertThatThrownBy(() -> Unique.byKey("")).isInstanceOf(InvalidOptionException.class).hasMessageContaining("1 to 200");
        assertThatThrownBy(() -> Unique.byKey("x".repeat(201))).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("201 characters");
        assertThatThrownBy(() -> Unique.byKey("a\u0000b")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("U+0000 at index 1");
        assertThatThrownBy(() -> Unique.byKey("a\ud800")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("lone surrogate at index 1");
        assertThat(Unique.byKey("emoji \ud83d\ude00").key()).contains("emoji \ud83d\ude00");
        // MySQL and MariaDB compare 'a' and 'a ' as one key: refused on every backend alike.
        assertThatThrownBy(() -> Unique.byKey("digest ")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("ends with a space");
        assertThat(Unique.byKey(" leading and inner spaces").key()).contains(" leading and inner spaces");
        assertThatThrownBy(() -> Unique.byArgs(new String[0])).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> Unique.byArgs("a", " ")).isInstanceOf(InvalidOptionException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> Unique.byArgs("a", "a")).isInstanceOf(InvalidOptionException.class).hasMessageContaining("repeat");
        assertThatThrownBy(() -> Unique.byKey("k").within(Duration.ofMillis(999))).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("between 1 second and 100 years");
        assertThatThrownBy(() -> Unique.byKey("k").within(null)).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> EnqueueOptions.defaults().withUnique(null)).isInstanceOf(InvalidOptionException.class);
    }

    @Test
    void theLongestKeyOfTheLongestKindAndQueueFitsTheColumn() {
        String kind = "k" + "x".repeat(127);
        JobKind<Map> longKind = JobKind.of(kind, Map.class);
        Skipjack s = client(builder().kind(longKind));
        String queue = "q" + "y".repeat(63);
        Unique u = Unique.byKey("\ud83d\ude00".repeat(100)).perQueue().within(Duration.ofDays(1));
        long id = s.enqueue(longKind, Map.of(), unique(u).withQueue(queue));
        String key = s.find(id).orElseThrow().uniqueKey();
        assertThat(key).endsWith("|key=" + "\ud83d\ude00".repeat(100)).contains("|queue=" + queue);
        assertThat(s.enqueueWithResult(JobRequest.of(longKind, Map.of(), unique(u).withQueue(queue)))).isEqualTo(new EnqueueResult(id, true));
    }
}
