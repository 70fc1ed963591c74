package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-12: a kind limited to N (per partition of its args, or as a whole) never has more than N jobs
 * running at once across all nodes, and uses the whole limit. Every handler records when it
 * started and ended; the overlap is computed from those times, not from Skipjack's bookkeeping.
 * A job of a crashed worker gives its slot back with its lease, whether it is retried or
 * discarded: slots are counted from job states, so none can leak (the trap other queues' users
 * report: a dead worker's slot blocking a key forever).
 */
class ConcurrencyLimitTest extends EveryBackendTest {

    record Sync(String customer, int n) {
    }

    static final Duration WAIT = Duration.ofSeconds(60);
    static final int NODES = 3;
    static final int WORKERS_PER_NODE = 6;

    /** One handler run: its partition, and when it started and ended (System.nanoTime). */
    record Run(String partition, long startNanos, long endNanos) {
    }

    private final List<Run> runs = Collections.synchronizedList(new ArrayList<>());

    private JobHandler<Sync> recording(Duration work) {
        return job -> {
            long start = System.nanoTime();
            Thread.sleep(work.toMillis()); // the job's own work; the test waits on states, not on this
            runs.add(new Run(job.args().customer(), start, System.nanoTime()));
            return Outcome.complete();
        };
    }

    private void startNodes(JobKind<Sync> kind, JobHandler<Sync> handler) {
        for (int i = 0; i < NODES; i++) {
            client(builder().workerId("node-" + i).queue(new QueueOptions("default", WORKERS_PER_NODE, 4))
                    .handler(kind, handler)).start();
        }
    }

    private void awaitCompleted(long jobs) {
        await(jobs + " jobs completed", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'completed'") == jobs);
    }

    /** The most runs of one partition that overlapped in time, per partition. */
    static Map<String, Integer> maxOverlapByPartition(List<Run> runs) {
        Map<String, List<long[]>> events = new HashMap<>();
        for (Run r : runs) {
            events.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(new long[]{r.startNanos(), +1});
            events.get(r.partition()).add(new long[]{r.endNanos(), -1});
        }
        Map<String, Integer> max = new HashMap<>();
        events.forEach((partition, list) -> {
            // An end at the same instant as a start counts first: the slot was free by then.
            list.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
            int now = 0;
            int most = 0;
            for (long[] e : list) {
                now += (int) e[1];
                most = Math.max(most, now);
            }
            max.put(partition, most);
        });
        return max;
    }

    @Test
    void aPartitionedLimitIsNeverExceededAcrossNodesAndIsUsedWhole() {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(2, Sync::customer);
        startNodes(sync, recording(Duration.ofMillis(40)));
        Skipjack producer = client(builder().kind(sync));
        List<JobRequest> requests = new ArrayList<>();
        for (int n = 0; n < 20; n++) {
            for (String customer : List.of("acme", "globex", "initech")) {
                requests.add(JobRequest.of(sync, new Sync(customer, n)));
            }
        }
        producer.enqueueAll(requests);
        awaitCompleted(requests.size());

        assertThat(runs).hasSize(requests.size());
        Map<String, Integer> overlap = maxOverlapByPartition(runs);
        assertThat(overlap).as("most jobs of one customer running at once").containsOnlyKeys("acme", "globex", "initech");
        assertThat(overlap.values()).as("the limit is never exceeded: %s", overlap).allMatch(most -> most <= 2);
        // 18 workers, 3 customers of 2 slots: each customer's 20 jobs keep both its slots busy.
        assertThat(overlap.values()).as("the whole limit is used: %s", overlap).contains(2);
        assertThat(maxOverlapByPartition(runs.stream().map(r -> new Run("all", r.startNanos(), r.endNanos())).toList())
                .get("all")).as("customers are limited apart, so more than one runs at once").isGreaterThan(2);
    }

    @Test
    void aWholeKindLimitAndAnEnqueueKeyAreNeverExceeded() {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(3);
        startNodes(sync, recording(Duration.ofMillis(30)));
        JobKind<Sync> report = JobKind.of("report", Sync.class);
        for (int i = 0; i < NODES; i++) {
            client(builder().workerId("reports-" + i).queue(new QueueOptions("reports", WORKERS_PER_NODE, 4))
                    .handler(report, job -> {
                        long start = System.nanoTime();
                        Thread.sleep(30);
                        runs.add(new Run("api", start, System.nanoTime()));
                        return Outcome.complete();
                    })).start();
        }
        Skipjack producer = client(builder().kind(sync).kind(report));
        List<JobRequest> requests = new ArrayList<>();
        for (int n = 0; n < 40; n++) {
            requests.add(JobRequest.of(sync, new Sync("c" + n, n)));
            requests.add(JobRequest.of(report, new Sync("r" + n, n),
                    EnqueueOptions.defaults().withQueue("reports").withConcurrencyKey("api", 2)));
        }
        producer.enqueueAll(requests);
        awaitCompleted(requests.size());

        Map<String, Integer> overlap = maxOverlapByPartition(runs.stream()
                .map(r -> r.partition().equals("api") ? r : new Run("sync", r.startNanos(), r.endNanos())).toList());
        assertThat(overlap.get("sync")).as("the kind's limit of 3").isBetween(2, 3);
        assertThat(overlap.get("api")).as("the key's limit of 2").isEqualTo(2);
    }

    @Test
    void aCrashedWorkersJobGivesItsSlotBackWithItsLease() {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(1, Sync::customer);
        Skipjack producer = client(builder().kind(sync));
        long first = producer.enqueue(sync, new Sync("acme", 1), EnqueueOptions.defaults().withMaxAttempts(1));
        long second = producer.enqueue(sync, new Sync("acme", 2));
        assertThat(producer.find(first).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
        assertThat(producer.find(second).orElseThrow().state()).as("over the limit of 1").isEqualTo(JobState.WAITING);
        // What a worker killed mid-job leaves behind: its job running, its lease over.
        execute("UPDATE " + jobsTable() + " SET state = 'running', attempt = 1, claimed_by = 'killed-node',"
                + " attempted_at = " + nowPlus(Duration.ofMinutes(-1)) + ", lease_until = "
                + nowPlus(Duration.ofSeconds(-1)) + " WHERE id = " + first);

        startNodes(sync, recording(Duration.ZERO));
        // Its last attempt, so the rescue discards it; the slot it held is free again.
        awaitState(producer, first, JobState.DISCARDED, WAIT);
        awaitState(producer, second, JobState.COMPLETED, WAIT);
    }

    @Test
    void aRescuedJobThatRunsAgainKeepsItsSlotUntilItEnds() throws Exception {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(1, Sync::customer);
        Skipjack producer = client(builder().kind(sync));
        long first = producer.enqueue(sync, new Sync("acme", 1));
        long second = producer.enqueue(sync, new Sync("acme", 2));
        execute("UPDATE " + jobsTable() + " SET state = 'running', attempt = 1, claimed_by = 'killed-node',"
                + " attempted_at = " + nowPlus(Duration.ofMinutes(-1)) + ", lease_until = "
                + nowPlus(Duration.ofSeconds(-1)) + " WHERE id = " + first);
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        startNodes(sync, job -> {
            if (job.args().n() == 1) {
                firstRunning.countDown();
                release.await();
            }
            return Outcome.complete();
        });
        assertThat(firstRunning.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the rescued job runs again").isTrue();
        // Several admission passes run while it does: none may admit the second job.
        long passes = System.nanoTime() + Duration.ofMillis(500).toNanos();
        while (System.nanoTime() < passes) {
            assertThat(producer.find(second).orElseThrow().state()).isEqualTo(JobState.WAITING);
        }
        release.countDown();
        awaitState(producer, second, JobState.COMPLETED, WAIT);
        assertThat(producer.find(first).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void aJobEnqueuedInTheCallersTransactionIsAdmittedAfterItCommits() throws Exception {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(2);
        startNodes(sync, recording(Duration.ZERO));
        Skipjack producer = client(builder().kind(sync));
        long id;
        try (var c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            id = producer.enqueue(c, sync, new Sync("acme", 1));
            c.commit();
        }
        // No enqueue or completion admits it: the admission pass does.
        awaitState(producer, id, JobState.COMPLETED, WAIT);
    }

    @Test
    void aCronTicksJobWaitsForASlotOfItsKind() throws Exception {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(1);
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Skipjack node = client(builder().queue(new QueueOptions("default", 4, 4)).handler(sync, job -> {
            if (job.args().n() == 0) {
                firstRunning.countDown();
                release.await();
            }
            return Outcome.complete();
        }).cron(CronSchedule.of("every-second", "* * * * * *", sync, new Sync("cron", 1))));
        long first = node.enqueue(sync, new Sync("enqueued", 0));
        node.start();
        assertThat(firstRunning.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        await("a tick's job", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id <> ?", first) > 0);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id <> ? AND (state <> 'waiting'"
                + " OR concurrency_key <> 'kind:sync')", first)).as("ticks' jobs wait for the kind's one slot").isZero();
        release.countDown();
        await("a tick's job completed", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE id <> ? AND state = 'completed'", first) > 0);
    }

    @Test
    void aWaitingUniqueJobHoldsItsUniqueKey() {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(1);
        Skipjack producer = client(builder().kind(sync));
        producer.enqueue(sync, new Sync("acme", 1));
        EnqueueOptions unique = EnqueueOptions.defaults().withUnique(Unique.byKey("nightly"));
        EnqueueResult waiting = producer.enqueueWithResult(JobRequest.of(sync, new Sync("acme", 2), unique));
        assertThat(producer.find(waiting.id()).orElseThrow().state()).isEqualTo(JobState.WAITING);
        EnqueueResult again = producer.enqueueWithResult(JobRequest.of(sync, new Sync("acme", 3), unique));
        assertThat(again.duplicate()).as("a waiting job is not terminal, so it holds its unique key").isTrue();
        assertThat(again.id()).isEqualTo(waiting.id());
    }

    @Test
    void anOperatorRetryOfAnEndedJobWaitsForASlotAgain() {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(1);
        Skipjack producer = client(builder().kind(sync));
        long first = producer.enqueue(sync, new Sync("acme", 1));
        producer.admin().cancel(first);
        long second = producer.enqueue(sync, new Sync("acme", 2));
        assertThat(producer.find(second).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
        assertThat(producer.admin().retry(first)).isTrue();
        assertThat(producer.find(first).orElseThrow().state()).as("the slot is the second job's").isEqualTo(JobState.WAITING);
    }

    @Test
    void theLockRowOfAKeyNoJobUsesAnyMoreIsPrunedAndComesBackWhenUsedAgain() throws Exception {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(1, Sync::customer);
        // The key's second job is held until its row is counted: finished, it could be pruned first.
        CountDownLatch counted = new CountDownLatch(1);
        Skipjack node = client(builder().pruneInterval(Duration.ofMillis(100))
                .retention(JobState.COMPLETED, Duration.ZERO).queue(new QueueOptions("default", 2, 2))
                .handler(sync, job -> {
                    if (job.args().n() == 2 && !counted.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never counted the key's row");
                    }
                    return Outcome.complete();
                }));
        long acme = node.enqueue(sync, new Sync("acme", 1));
        node.enqueue(sync, new Sync("globex", 1));
        String keyRows = "SELECT count(*) FROM " + table("skipjack_concurrency_keys");
        assertThat(queryLong(keyRows)).as("one lock row per key admitted").isEqualTo(2);
        node.start();
        await("both jobs pruned, then their keys' rows", WAIT, () -> queryLong(keyRows) == 0);
        assertThat(node.find(acme)).isEmpty();
        long again = node.enqueue(sync, new Sync("acme", 2));
        // Only acme's row is asked about: globex's last admission, run just after its job's end,
        // may insert its row again after the prune took it (it goes at the next prune).
        assertThat(queryLong(keyRows + " WHERE concurrency_key = 'kind:sync/acme'"))
                .as("the key used again has its row back").isEqualTo(1);
        counted.countDown();
        await("the new job pruned", WAIT, () -> node.find(again).isEmpty());
    }

    @Test
    void operatorsSeeEachKeyWithItsUsage() {
        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(2, Sync::customer);
        Skipjack producer = client(builder().kind(sync));
        List<Long> ids = new ArrayList<>();
        for (int n = 0; n < 5; n++) {
            ids.add(producer.enqueue(sync, new Sync("acme", n)));
        }
        assertThat(producer.find(ids.get(4)).orElseThrow().concurrencyKey()).as("a job shows its key")
                .isEqualTo("kind:sync/acme");
        producer.enqueue(JobKind.of("other", Sync.class), new Sync("x", 1),
                EnqueueOptions.defaults().withSequenceKey("order-7"));
        List<ConcurrencyKeyInfo> keys = producer.admin().concurrencyKeys();
        assertThat(keys).extracting(ConcurrencyKeyInfo::key).containsExactly("kind:sync/acme", "seq:order-7");
        ConcurrencyKeyInfo acme = keys.get(0);
        assertThat(acme.max()).isEqualTo(2);
        assertThat(acme.ordered()).isFalse();
        assertThat(acme.holding()).isEqualTo(2);
        assertThat(acme.waiting()).isEqualTo(3);
        assertThat(acme.isFull()).isTrue();
        assertThat(keys.get(1).ordered()).isTrue();
        assertThat(keys.get(1).holding()).isEqualTo(1);
        assertThat(keys.get(1).heldBy()).isNotNull();
    }

    /**
     * With more keys waiting than one admission pass takes (500), every key still gets its turn:
     * the pass goes on in key order from where the last one stopped. Taken in the order the rows
     * came, the same full keys with a backlog came first on every pass, and a key only the pass
     * admits (here a job enqueued in the caller's transaction, which no enqueue admits after) was
     * never looked at.
     */
    @Test
    void everyWaitingKeyGetsItsTurnWhenMoreKeysWaitThanAPassTakes() throws Exception {
        JobKind<Sync> kind = JobKind.of("sync", Sync.class);
        Skipjack producer = client(builder().kind(kind));
        List<JobRequest> requests = new ArrayList<>();
        for (int k = 0; k < 600; k++) {
            // Two jobs per key of limit 1: the first holds its slot (available, nobody serves the
            // queue), the second waits, due: a full key with a backlog, as with per-tenant limits.
            for (int n = 0; n < 2; n++) {
                requests.add(JobRequest.of(kind, new Sync("t", n), EnqueueOptions.defaults().withQueue("unserved")
                        .withConcurrencyKey(String.format("tenant-%03d", k), 1)));
            }
        }
        producer.enqueueAll(requests);
        long last;
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            last = producer.enqueue(tx, kind, new Sync("z", 0),
                    EnqueueOptions.defaults().withQueue("unserved").withConcurrencyKey("zzz-last", 1));
            tx.commit();
            tx.setAutoCommit(true);
        }
        assertThat(producer.find(last).orElseThrow().state()).isEqualTo(JobState.WAITING);

        client(builder().queue("elsewhere", 1)).start(); // its admission pass runs every 50 ms
        awaitState(producer, last, JobState.AVAILABLE, WAIT);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'available'"))
                .as("one per key, none over its limit").isEqualTo(601);
    }

    /**
     * A key whose admission fails (here a trigger refuses its lock row) holds back no other: the
     * keys after it in the pass are admitted too, and the queues of those admitted are woken at
     * once. Before, the pass stopped at that key, and the jobs it had admitted before it waited for
     * a poll.
     */
    @Test
    void aKeyWhoseAdmissionFailsHoldsBackNoOtherKey() throws Exception {
        JobKind<Sync> kind = JobKind.of("sync", Sync.class);
        java.util.concurrent.BlockingQueue<String> started = new java.util.concurrent.LinkedBlockingQueue<>();
        // Polls once a minute, without LISTEN: only the admission pass's wake-up starts a job soon.
        Skipjack worker = client(builder().pollInterval(Duration.ofMinutes(1)).listenNotify(false).queue("default", 4)
                .handler(kind, job -> {
                    started.add(job.args().customer());
                    return Outcome.complete();
                }));
        // The lock row of the key given as "tenant-b" (stored with the prefix of keys given at enqueue).
        String keys = table("skipjack_concurrency_keys");
        switch (backend()) {
            case POSTGRESQL -> {
                execute("CREATE FUNCTION " + schema + ".refuse_tenant_b() RETURNS trigger LANGUAGE plpgsql AS $$"
                        + " BEGIN IF NEW.concurrency_key = 'key:tenant-b' THEN RAISE EXCEPTION 'tenant-b refused by the test';"
                        + " END IF; RETURN NEW; END $$");
                execute("CREATE TRIGGER refuse_tenant_b BEFORE INSERT ON " + keys
                        + " FOR EACH ROW EXECUTE FUNCTION " + schema + ".refuse_tenant_b()");
            }
            case SQLITE -> execute("CREATE TRIGGER refuse_tenant_b BEFORE INSERT ON skipjack_concurrency_keys"
                    + " WHEN NEW.concurrency_key = 'key:tenant-b' BEGIN SELECT RAISE(ABORT, 'tenant-b refused by the test'); END");
            default -> execute("CREATE TRIGGER " + backend().qualified(schema, "refuse_tenant_b") + " BEFORE INSERT ON "
                    + keys + " FOR EACH ROW BEGIN IF NEW.concurrency_key = 'key:tenant-b' THEN"
                    + " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'tenant-b refused by the test'; END IF; END");
        }
        List<Long> ids = new ArrayList<>();
        try (Connection tx = dataSource.getConnection()) {
            // In the caller's transaction: no enqueue admits them after, the admission pass does.
            tx.setAutoCommit(false);
            for (String tenant : List.of("tenant-a", "tenant-b", "tenant-c")) {
                ids.add(worker.enqueue(tx, kind, new Sync(tenant, 0), EnqueueOptions.defaults().withConcurrencyKey(tenant, 1)));
            }
            tx.commit();
            tx.setAutoCommit(true);
        }
        try (dev.skipjack.support.LogCapture log = new dev.skipjack.support.LogCapture()) {
            worker.start();
            List<String> first = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                first.add(started.poll(10, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertThat(first).as("jobs started").containsExactlyInAnyOrder("tenant-a", "tenant-c");
            // A later pass, which meets tenant-b again, admits a job enqueued after the first.
            try (Connection tx = dataSource.getConnection()) {
                tx.setAutoCommit(false);
                worker.enqueue(tx, kind, new Sync("tenant-d", 0), EnqueueOptions.defaults().withConcurrencyKey("tenant-d", 1));
                tx.commit();
                tx.setAutoCommit(true);
            }
            assertThat(started.poll(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("tenant-d");
            assertThat(log.linesContaining("key:tenant-b")).as("the failing key, warned once").hasSize(1);
            assertThat(log.linesContaining("concurrency admission failed")).as("the pass backing off").isEmpty();
        }
        assertThat(worker.find(ids.get(1)).orElseThrow().state()).isEqualTo(JobState.WAITING);
    }

    @Test
    void badLimitsAndPartitionsAreRefusedAtTheCallSite() {
        assertThatThrownBy(() -> JobKind.of("sync", Sync.class).limitedTo(0))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("between 1 and");
        assertThatThrownBy(() -> JobKind.of("sync", Sync.class).limitedTo(2, null))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("partition function");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withConcurrencyKey("api", 0))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("between 1 and");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withConcurrencyKey("", 2))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withConcurrencyKey("a".repeat(201), 2))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("over the limit of 200");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withConcurrencyKey("a\u0000b", 2))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("U+0000");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withConcurrencyKey("a\uD800b", 2))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("surrogate");
        // MySQL and MariaDB compare 'api' and 'api ' as one key: refused on every backend alike.
        assertThatThrownBy(() -> EnqueueOptions.defaults().withConcurrencyKey("api ", 2))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("ends with a space");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withSequenceKey("order-1 "))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("ends with a space");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withRateLimit("partner ", 1, Duration.ofSeconds(1)))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("ends with a space");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withSequenceKey("s").withConcurrencyKey("api", 2))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("one concurrency key");

        JobKind<Sync> sync = JobKind.of("sync", Sync.class).limitedTo(2, Sync::customer);
        Skipjack producer = client(builder().kind(sync));
        assertThatThrownBy(() -> producer.enqueue(sync, new Sync(null, 1)))
                .isInstanceOf(InvalidArgsException.class).hasMessageContaining("returned null");
        assertThatThrownBy(() -> producer.enqueue(sync, new Sync("c".repeat(121), 1)))
                .isInstanceOf(InvalidArgsException.class).hasMessageContaining("over the limit of 120");
        assertThatThrownBy(() -> producer.enqueue(sync, new Sync("acme", 1), EnqueueOptions.defaults().withSequenceKey("s")))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("one concurrency key");
        assertThatThrownBy(() -> producer.enqueueWorkflow(Workflow.named("w")
                .add("a", JobRequest.of(sync, new Sync("acme", 1)))))
                .isInstanceOf(InvalidWorkflowException.class).hasMessageContaining("concurrency key");
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).as("nothing refused was stored").isZero();
    }
}
