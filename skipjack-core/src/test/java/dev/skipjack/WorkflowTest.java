package dev.skipjack;

import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.maintenance.LeaseRescuer;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.skipjack.Workflow.dependsOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-14: a workflow's job runs only once every job it depends on completed, exactly once, and is
 * never left waiting when they have. Fan-in is decided by decrementing the child in each parent's
 * completion transaction, never by reading the parents: the trap is timgit/pg-boss#777, where the
 * last two parents completed in overlapping transactions, each saw the other unfinished, and the
 * child was stranded. Many worker threads in two clients drain wide fan-ins here, in lease mode
 * (batched acknowledgements) and in transactional mode (one completion transaction per parent,
 * all at once), round after round; a completion recorded twice, or after its lease was rescued,
 * never counts twice.
 */
class WorkflowTest extends EveryBackendTest {

    record Step(String name, int value) {
    }

    record Result(int value) {
    }

    static final JobKind<Step> LEASED = JobKind.of("wf-leased", Step.class);
    static final JobKind<Step> TRANSACTIONAL = JobKind.of("wf-transactional", Step.class);
    static final JobKind<Step> JOIN = JobKind.of("wf-join", Step.class);
    static final Duration WAIT = Duration.ofSeconds(90);

    /** Executions per job id, as the handlers saw them. */
    private final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** For each join execution: how many of its parents were not completed when it started. */
    private final Map<Long, Long> parentsUnfinishedAtStart = new ConcurrentHashMap<>();

    private Skipjack worker(int concurrency) {
        return client(builder().queue("wf", concurrency)
                .handler(LEASED, job -> {
                    runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
                    return Outcome.complete(new Result(job.args().value()));
                })
                .transactionalHandler(TRANSACTIONAL, (job, tx) -> {
                    runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
                    return Outcome.complete(new Result(job.args().value()));
                })
                .handler(JOIN, job -> {
                    runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
                    parentsUnfinishedAtStart.put(job.id(), queryLong("SELECT count(*) FROM " + jobsTable()
                            + " WHERE workflow_id = ? AND id <> ? AND state <> 'completed'", job.workflow().workflowId(), job.id()));
                    int sum = 0;
                    for (String parent : job.workflow().parentOutputs().keySet()) {
                        sum += job.parentOutput(parent, Result.class).value();
                    }
                    return Outcome.complete(new Result(sum));
                }));
    }

    private static EnqueueOptions inQueue() {
        return EnqueueOptions.defaults().withQueue("wf");
    }

    private static Workflow fanIn(String name, JobKind<Step> parentKind, int parents) {
        Workflow w = Workflow.named(name);
        String[] names = new String[parents];
        for (int i = 0; i < parents; i++) {
            names[i] = "p" + i;
            w = w.add(names[i], JobRequest.of(parentKind, new Step(names[i], 1), inQueue()));
        }
        return w.add("join", JobRequest.of(JOIN, new Step("join", 0), inQueue()), dependsOn(names));
    }

    private WorkflowInfo awaitFinished(Skipjack s, long workflowId) {
        await("workflow " + workflowId + " to finish", WAIT,
                () -> s.admin().workflow(workflowId).orElseThrow().state().isFinished());
        return s.admin().workflow(workflowId).orElseThrow();
    }

    @Test
    void aWideFanInDrainedByManyWorkersRunsItsChildExactlyOnceRoundAfterRound() {
        Skipjack a = worker(8);
        Skipjack b = worker(8);
        a.start();
        b.start();
        int[] widths = {50, 120, 200};
        int round = 0;
        for (JobKind<Step> parentKind : List.of(LEASED, TRANSACTIONAL)) {
            for (int width : widths) {
                round++;
                EnqueuedWorkflow w = (round % 2 == 0 ? a : b).enqueueWorkflow(fanIn("fan-in-" + round, parentKind, width));
                WorkflowInfo done = awaitFinished(a, w.id());

                String label = parentKind.name() + " round " + round + " (" + width + " parents)";
                assertThat(done.state()).as(label).isEqualTo(WorkflowState.COMPLETED);
                assertThat(done.remaining()).as(label).isZero();
                assertThat(done.steps()).as(label).hasSize(width + 1)
                        .allSatisfy(s -> assertThat(s.job().state()).isEqualTo(JobState.COMPLETED));
                long join = w.jobId("join");
                assertThat(runs.get(join)).as(label + ": the child ran once").hasValue(1);
                assertThat(parentsUnfinishedAtStart.get(join)).as(label + ": parents unfinished when the child started").isZero();
                for (int i = 0; i < width; i++) {
                    assertThat(runs.get(w.jobId("p" + i))).as(label + ": parent p" + i + " ran once").hasValue(1);
                }
                WorkflowInfo.Step joinStep = done.step("join");
                assertThat(joinStep.dependsOn()).as(label).hasSize(width);
                assertThat(joinStep.satisfied()).as(label + ": every edge satisfied once").hasSize(width);
                assertThat(value(joinStep.job())).as(label + ": the child read every parent's output").isEqualTo(width);
                assertThat(queryLong("SELECT pending_deps FROM " + jobsTable() + " WHERE id = ?", join)).isZero();
            }
        }
    }

    @Test
    void aDiamondRunsEachStepAfterItsParentsAndHandsOutputsDown() {
        List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
        JobKind<Step> node = JobKind.of("wf-node", Step.class);
        Skipjack s = client(builder().queue("wf", 4).handler(node, job -> {
            events.add("start " + job.args().name());
            int in = 0;
            if (job.workflow() != null) {
                for (String parent : job.workflow().parentOutputs().keySet()) {
                    in += job.parentOutput(parent, Result.class).value();
                }
            }
            events.add("end " + job.args().name());
            return Outcome.complete(new Result(in + job.args().value()));
        }));
        s.start();
        Workflow diamond = Workflow.named("diamond")
                // Added child first: a step may name parents added after it.
                .add("d", JobRequest.of(node, new Step("d", 1000), inQueue()), dependsOn("b", "c"))
                .add("a", JobRequest.of(node, new Step("a", 1), inQueue()))
                .add("b", JobRequest.of(node, new Step("b", 10), inQueue()), dependsOn("a"))
                .add("c", JobRequest.of(node, new Step("c", 100), inQueue()), dependsOn("a"));
        EnqueuedWorkflow w = s.enqueueWorkflow(diamond);
        assertThat(w.jobIds().keySet()).as("parents first").containsExactly("a", "b", "c", "d");
        assertThat(w.jobId("a")).isLessThan(w.jobId("b")).isLessThan(w.jobId("d"));

        WorkflowInfo done = awaitFinished(s, w.id());

        assertThat(done.state()).isEqualTo(WorkflowState.COMPLETED);
        assertThat(done.name()).isEqualTo("diamond");
        assertThat(done.policy()).isEqualTo(WorkflowPolicy.CANCEL);
        assertThat(done.finishedAt()).isNotNull().isAfterOrEqualTo(done.createdAt());
        assertThat(events.indexOf("end a")).isLessThan(events.indexOf("start b")).isLessThan(events.indexOf("start d"));
        assertThat(events.indexOf("end a")).isLessThan(events.indexOf("start c"));
        assertThat(events.indexOf("end b")).isLessThan(events.indexOf("start d"));
        assertThat(events.indexOf("end c")).isLessThan(events.indexOf("start d"));
        assertThat(done.step("a").dependsOn()).isEmpty();
        assertThat(done.step("d").dependsOn()).containsExactly("b", "c");
        assertThat(done.step("d").satisfied()).containsExactly("b", "c");
        assertThat(value(done.step("b").job())).isEqualTo(11);
        assertThat(value(done.step("c").job())).isEqualTo(101);
        assertThat(value(done.step("d").job())).as("b's 11 + c's 101 + 1000").isEqualTo(1112);
        assertThat(s.find(w.jobId("d")).orElseThrow().workflowStep()).isEqualTo("d");
        assertThat(s.find(w.jobId("d")).orElseThrow().workflowId()).isEqualTo(w.id());
    }

    /**
     * A completion written twice, and a stale completion of an attempt whose lease was rescued,
     * after the job ran again and completed: neither decrements the child a second time (the
     * completion's guarded update hits nothing, and the edge is satisfied already).
     */
    @Test
    void aCompletionDeliveredAgainNeverCountsTwice() throws Exception {
        Skipjack s = client(builder().kind(LEASED).kind(JOIN));
        SqlStatements sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        CompletionWriter writer = new CompletionWriter(sql);
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("redelivery")
                .add("a", JobRequest.of(LEASED, new Step("a", 1), inQueue()))
                .add("b", JobRequest.of(LEASED, new Step("b", 1), inQueue()))
                .add("c", JobRequest.of(LEASED, new Step("c", 1), inQueue()))
                .add("join", JobRequest.of(JOIN, new Step("join", 0), inQueue()), dependsOn("a", "b", "c")));
        long join = w.jobId("join");
        assertThat(pendingDeps(join)).isEqualTo(3);
        assertThat(s.find(join).orElseThrow().state()).isEqualTo(JobState.WAITING);

        // a: completed, and the same acknowledgement written again (twice in one batch, then alone).
        ClaimedJob a = claimOne(sql, "w1");
        assertThat(a.id()).isEqualTo(w.jobId("a"));
        assertThat(a.workflowId()).isEqualTo(w.id());
        Completion aDone = Completion.completed(a.id(), a.attempt()).inWorkflow(a.workflowId());
        assertThat(write(writer, aDone, aDone)).isEqualTo(1);
        assertThat(write(writer, aDone)).isZero();
        assertThat(pendingDeps(join)).isEqualTo(2);
        assertThat(remaining(w.id())).isEqualTo(3);

        // b: claimed, its lease expires and is rescued; the second attempt completes; then the first
        // attempt's completion arrives late.
        ClaimedJob b1 = claimOne(sql, "w1");
        assertThat(b1.id()).isEqualTo(w.jobId("b"));
        execute("UPDATE " + jobsTable() + " SET lease_until = " + nowPlus(Duration.ofSeconds(-1)) + " WHERE id = " + b1.id());
        assertThat(new LeaseRescuer(dataSource, sql).rescueAll()).isEqualTo(1);
        ClaimedJob b2 = claimOne(sql, "w2");
        assertThat(b2.id()).isEqualTo(b1.id());
        assertThat(b2.attempt()).isEqualTo(2);
        assertThat(write(writer, Completion.completed(b2.id(), b2.attempt()).inWorkflow(w.id()))).isEqualTo(1);
        assertThat(write(writer, Completion.completed(b1.id(), b1.attempt()).inWorkflow(w.id())))
                .as("the rescued attempt's late completion").isZero();
        assertThat(pendingDeps(join)).isEqualTo(1);
        assertThat(s.find(join).orElseThrow().state()).isEqualTo(JobState.WAITING);

        // c completes: the child is released once, with nothing left pending, and never below zero.
        ClaimedJob c = claimOne(sql, "w1");
        assertThat(write(writer, Completion.completed(c.id(), c.attempt()).inWorkflow(w.id()))).isEqualTo(1);
        assertThat(write(writer, Completion.completed(c.id(), c.attempt()).inWorkflow(w.id()))).isZero();
        assertThat(pendingDeps(join)).isZero();
        assertThat(s.find(join).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
        assertThat(queryLong("SELECT count(*) FROM " + table("skipjack_job_dependencies")
                + " WHERE child_id = ? AND satisfied = " + trueLiteral(), join)).isEqualTo(3);
        assertThat(remaining(w.id())).as("a, b and c ended; the child has not").isEqualTo(1);

        ClaimedJob j = claimOne(sql, "w1");
        assertThat(j.id()).isEqualTo(join);
        assertThat(write(writer, Completion.completed(j.id(), j.attempt()).inWorkflow(w.id()))).isEqualTo(1);
        WorkflowInfo done = s.admin().workflow(w.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(WorkflowState.COMPLETED);
        assertThat(done.remaining()).isZero();
    }

    /** The value of a job's recorded Result output (the JSON's spacing is the database's). */
    static int value(JobInfo job) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readValue(job.outputJson(), Result.class).value();
        } catch (Exception e) {
            throw new AssertionError("job " + job.id() + " output " + job.outputJson() + ": " + e, e);
        }
    }

    private String trueLiteral() {
        return backend() == dev.skipjack.support.TestBackend.SQLITE ? "1" : "TRUE";
    }

    private ClaimedJob claimOne(SqlStatements sql, String workerId) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            List<ClaimedJob> jobs = new JobClaimer(sql, workerId, Duration.ofMinutes(5)).claim(c, "wf", Set.of(), 1);
            assertThat(jobs).hasSize(1);
            return jobs.get(0);
        }
    }

    private int write(CompletionWriter writer, Completion... completions) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            return writer.write(c, List.of(completions));
        }
    }

    private long pendingDeps(long jobId) {
        return queryLong("SELECT pending_deps FROM " + jobsTable() + " WHERE id = ?", jobId);
    }

    private long remaining(long workflowId) {
        return queryLong("SELECT remaining FROM " + table("skipjack_workflows") + " WHERE id = ?", workflowId);
    }

    /** A transactional handler that completes with an output keeps its writes, in a workflow or not. */
    @Test
    void aTransactionalHandlersOutputCommitsWithItsWrites() {
        JobKind<Step> book = JobKind.of("wf-book", Step.class);
        Skipjack s = client(builder().queue("wf", 2).transactionalHandler(book, (job, tx) -> {
            try (java.sql.PreparedStatement ps = tx.prepareStatement("INSERT INTO " + table("wf_ledger") + " (n) VALUES (?)")) {
                ps.setInt(1, job.args().value());
                ps.executeUpdate();
            }
            return Outcome.complete(new Result(job.args().value()));
        }));
        execute("CREATE TABLE " + table("wf_ledger") + " (n INTEGER NOT NULL)");
        s.start();
        long alone = s.enqueue(book, new Step("alone", 1), inQueue());
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("books")
                .add("a", JobRequest.of(book, new Step("a", 10), inQueue()))
                .add("b", JobRequest.of(book, new Step("b", 100), inQueue()), dependsOn("a")));
        WorkflowInfo done = awaitFinished(s, w.id());
        awaitState(s, alone, JobState.COMPLETED, WAIT);

        assertThat(done.state()).isEqualTo(WorkflowState.COMPLETED);
        assertThat(queryLong("SELECT sum(n) FROM " + table("wf_ledger"))).as("every handler's write kept").isEqualTo(111);
        assertThat(value(s.find(alone).orElseThrow())).isEqualTo(1);
        assertThat(value(done.step("b").job())).isEqualTo(100);
    }

    @Test
    void aWorkflowThatIsNotThereIsEmpty() {
        Skipjack s = client(builder());
        assertThat(s.admin().workflow(123_456)).isEmpty();
    }

    @Test
    void aStepDueLaterWaitsForItsOwnTimeAfterItsParents() {
        Skipjack s = client(builder().queue("wf", 2).handler(LEASED, job -> Outcome.complete()));
        s.start();
        Instant later = Instant.now().plus(Duration.ofDays(1));
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("later")
                .add("a", JobRequest.of(LEASED, new Step("a", 1), inQueue()))
                .add("b", JobRequest.of(LEASED, new Step("b", 1), inQueue().withRunAt(later)), dependsOn("a")));
        await("b to be released", WAIT, () -> s.find(w.jobId("b")).orElseThrow().state() != JobState.WAITING);
        assertThat(s.find(w.jobId("b")).orElseThrow().state()).as("released to its run_at, a day ahead")
                .isEqualTo(JobState.SCHEDULED);
        assertThat(s.admin().workflow(w.id()).orElseThrow().state()).isEqualTo(WorkflowState.RUNNING);
    }
}
