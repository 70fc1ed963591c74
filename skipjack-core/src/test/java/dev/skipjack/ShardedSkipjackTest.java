package dev.skipjack;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.ShardedSkipjack.ShardJobId;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 16, item 4: queues beyond one database. A {@link ShardedSkipjack} over three real
 * databases of one backend (on SQLite, three files) routes every job to one shard, keeps the jobs
 * of one key on one shard so unique jobs and limits hold across shards, drains every shard, and
 * refuses what cannot hold across shards. Expected values are read back from each database with
 * plain SQL.
 */
class ShardedSkipjackTest extends EveryBackendTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    record Task(int n, String customer) {
    }

    private static final JobKind<Task> TASK = JobKind.of("task", Task.class);
    /** A kind-wide limit: one key for the whole kind, so the whole kind lives on one shard. */
    private static final JobKind<Task> LIMITED = JobKind.of("limited", Task.class).limitedTo(2);

    private final Map<String, HikariDataSource> shardDataSources = new LinkedHashMap<>();
    private final List<ShardedSkipjack> clients = new ArrayList<>();

    @BeforeEach
    void threeDatabases() {
        for (String name : List.of("s1", "s2", "s3")) {
            String database = "shard_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
            shardDataSources.put(name, backend.newDatabase(database, 8));
        }
    }

    @AfterEach
    void closeShards() {
        clients.forEach(ShardedSkipjack::close);
        shardDataSources.values().forEach(HikariDataSource::close);
    }

    private ShardedSkipjack sharded(UnaryOperator<Skipjack.Builder> configure, Map<String, String> pins) {
        ShardedSkipjack.Builder builder = ShardedSkipjack.builder(b -> configure.apply(b
                .pollInterval(Duration.ofMillis(50)).promoteInterval(Duration.ofMillis(50))));
        shardDataSources.forEach(builder::shard);
        pins.forEach(builder::pinQueue);
        ShardedSkipjack client = builder.build();
        client.migrate();
        clients.add(client);
        return client;
    }

    private ShardedSkipjack producer() {
        return sharded(b -> b.kind(TASK).kind(LIMITED), Map.of("billing", "s2", "mail", "s3"));
    }

    /** Jobs per state in one shard's database, by plain SQL. */
    private long jobsIn(String shard, String where) {
        try (Connection c = shardDataSources.get(shard).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM skipjack_jobs WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void jobsOfOneKeyMeetOnOneShardAndJobsWithoutOneSpreadOverAll() {
        ShardedSkipjack client = producer();
        Map<String, Set<String>> shardsPerCustomer = new HashMap<>();
        for (int i = 0; i < 60; i++) {
            String customer = "c" + (i % 12);
            ShardJobId id = client.enqueue(TASK, new Task(i, customer), EnqueueOptions.defaults()
                    .withConcurrencyKey("customer-" + customer, 1));
            shardsPerCustomer.computeIfAbsent(customer, k -> new java.util.HashSet<>()).add(id.shard());
        }
        assertThat(shardsPerCustomer.values()).as("each customer's jobs on one shard").allMatch(s -> s.size() == 1);
        assertThat(shardsPerCustomer.values().stream().flatMap(Set::stream).collect(Collectors.toSet()))
                .as("12 keys reach more than one shard").hasSizeGreaterThan(1);

        for (int i = 0; i < 30; i++) {
            client.enqueue(TASK, new Task(i, "anyone"));
        }
        for (String shard : client.shardNames()) {
            assertThat(jobsIn(shard, "concurrency_key IS NULL")).as("unkeyed jobs on shard %s", shard).isEqualTo(10);
        }

        ShardJobId billing = client.enqueue(TASK, new Task(0, "c1"), EnqueueOptions.defaults().withQueue("billing"));
        assertThat(billing.shard()).isEqualTo("s2");
        assertThat(jobsIn("s2", "queue = 'billing'")).isEqualTo(1);
        assertThat(client.find(billing)).hasValueSatisfying(job -> assertThat(job.queue()).isEqualTo("billing"));
    }

    @Test
    void aUniqueJobIsEnqueuedOnceAcrossShardsByTwoProducers() {
        ShardedSkipjack a = producer();
        ShardedSkipjack b = producer();
        EnqueueOptions unique = EnqueueOptions.defaults().withUnique(Unique.byKey("invoice-42"));
        ShardJobId first = a.enqueue(TASK, new Task(1, "c1"), unique);
        ShardJobId second = b.enqueue(TASK, new Task(2, "c1"), unique);

        assertThat(second).as("the second producer finds the first one's job").isEqualTo(first);
        long total = 0;
        for (String shard : a.shardNames()) {
            total += jobsIn(shard, "unique_key IS NOT NULL");
        }
        assertThat(total).isEqualTo(1);
    }

    @Test
    void workersDrainEveryShardAndRunEachJobOnce() throws Exception {
        Map<Integer, Integer> runs = new ConcurrentHashMap<>();
        ShardedSkipjack worker = sharded(b -> b.queue("default", 4).handler(TASK, job -> {
            runs.merge(job.args().n(), 1, Integer::sum);
            return Outcome.complete();
        }), Map.of());
        worker.enqueueAll(IntStream.range(0, 300).mapToObj(i -> JobRequest.of(TASK, new Task(i, "c" + i % 7))).toList());
        worker.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (worker.countByState().getOrDefault(JobState.COMPLETED, 0L) < 300 && System.nanoTime() < deadline) {
            Thread.sleep(50); // polling the shards' counts with a deadline
        }
        worker.close();

        assertThat(runs).hasSize(300);
        assertThat(runs.values()).containsOnly(1);
        for (String shard : worker.shardNames()) {
            assertThat(jobsIn(shard, "state = 'completed'")).as("shard %s did its share", shard).isEqualTo(100);
        }
    }

    @Test
    void aKindWideLimitHoldsAcrossShardsAndNodes() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        UnaryOperator<Skipjack.Builder> node = b -> b.queue("default", 6).handler(LIMITED, job -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                Thread.sleep(20); // the job's work: long enough for runs to overlap if the limit let them
            } finally {
                running.decrementAndGet();
            }
            done.incrementAndGet();
            return Outcome.complete();
        });
        ShardedSkipjack one = sharded(node, Map.of());
        ShardedSkipjack two = sharded(node, Map.of());
        List<ShardJobId> ids = one.enqueueAll(IntStream.range(0, 40)
                .mapToObj(i -> JobRequest.of(LIMITED, new Task(i, "c"))).toList());
        assertThat(ids.stream().map(ShardJobId::shard).distinct()).as("one key: one shard").hasSize(1);
        one.start();
        two.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (done.get() < 40 && System.nanoTime() < deadline) {
            Thread.sleep(20); // polling the handler's count with a deadline
        }
        assertThat(done.get()).isEqualTo(40);
        assertThat(most.get()).as("most jobs of the limited kind running at once, over 2 nodes x 3 shards").isLessThanOrEqualTo(2);
    }

    @Test
    void aWorkflowRunsWholeOnOneShardAndOneThatWouldSpanShardsIsRefused() {
        ShardedSkipjack client = producer();
        Workflow together = Workflow.named("report")
                .add("load-a", JobRequest.of(TASK, new Task(1, "a")))
                .add("load-b", JobRequest.of(TASK, new Task(2, "b")))
                .add("merge", JobRequest.of(TASK, new Task(3, "ab")), Workflow.dependsOn("load-a", "load-b"));
        ShardedSkipjack.ShardedWorkflow enqueued = client.enqueueWorkflow(together);
        assertThat(jobsIn(enqueued.shard(), "workflow_id IS NOT NULL")).isEqualTo(3);

        // Workflow steps cannot carry keys (yet), so only queue pins can pull a workflow apart.
        Workflow apart = Workflow.named("apart")
                .add("charge", JobRequest.of(TASK, new Task(1, "a"), EnqueueOptions.defaults().withQueue("billing")))
                .add("notify", JobRequest.of(TASK, new Task(2, "a"), EnqueueOptions.defaults().withQueue("mail")),
                        Workflow.dependsOn("charge"));
        assertThatThrownBy(() -> client.enqueueWorkflow(apart))
                .isInstanceOfSatisfying(InvalidWorkflowException.class,
                        e -> assertThat(e.problem()).isEqualTo(InvalidWorkflowException.Problem.SPANS_SHARDS))
                .hasMessageContaining("step 'charge' goes to shard 's2' and step 'notify' to shard 's3'");
        long workflowJobs = 0;
        for (String shard : client.shardNames()) {
            workflowJobs += jobsIn(shard, "workflow_id IS NOT NULL");
        }
        assertThat(workflowJobs).as("nothing of the refused workflow was inserted").isEqualTo(3);

        Workflow pinned = Workflow.named("pinned")
                .add("charge", JobRequest.of(TASK, new Task(1, "a"), EnqueueOptions.defaults().withQueue("billing")))
                .add("receipt", JobRequest.of(TASK, new Task(2, "a")), Workflow.dependsOn("charge"));
        assertThat(client.enqueueWorkflow(pinned).shard()).as("a pinned step takes its workflow along").isEqualTo("s2");
    }

    @Test
    void badConfigurationIsRefusedWhereItIsWritten() {
        assertThatThrownBy(() -> ShardedSkipjack.builder(b -> b).build())
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("at least one shard");
        HikariDataSource any = shardDataSources.get("s1");
        assertThatThrownBy(() -> ShardedSkipjack.builder(b -> b).shard("s1", any).shard("s1", any))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("added twice");
        assertThatThrownBy(() -> ShardedSkipjack.builder(b -> b).shard("EU West", any))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("invalid shard name");
        assertThatThrownBy(() -> ShardedSkipjack.builder(b -> b).shard("s1", any).pinQueue("billing", "s9").build())
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("shard 's9', which was not added");
        assertThatThrownBy(() -> producer().shard("s9"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no shard named 's9'");
        assertThatThrownBy(() -> producer().enqueue(TASK, new Task(1, "a"), EnqueueOptions.defaults().withQueue("Bad Queue")))
                .isInstanceOf(InvalidJobException.class);
        for (String shard : List.of("s1", "s2", "s3")) {
            assertThat(jobsIn(shard, "1 = 1")).isZero();
        }
    }
}
