package dev.skipjack;

import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.maintenance.LeaseRescuer;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.skipjack.Workflow.dependsOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-14's failure policy: when a workflow's job ends without completing (discarded by its handler or
 * out of attempts, cancelled, discarded by the lease rescuer on its last attempt, cancelled or
 * discarded by an operator, also while it waits), {@link WorkflowPolicy#CANCEL} (the default)
 * cancels every job depending on it, directly or not, so none of them ever runs, and
 * {@link WorkflowPolicy#CONTINUE} counts the end as done for its children. Either way the
 * workflow ends, failed when a job was discarded.
 */
class WorkflowFailurePolicyTest extends EveryBackendTest {

    /** What the step's handler does: complete, discard, throw (out of attempts), or wait for the test first. */
    record Step(String name, String does) {
    }

    record Result(String from) {
    }

    static final JobKind<Step> STEP = JobKind.of("wf-policy-step", Step.class);
    static final JobKind<Step> TX_STEP = JobKind.of("wf-policy-tx-step", Step.class);
    static final Duration WAIT = Duration.ofSeconds(60);

    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** What each step saw of its parents' outputs: step -> "parent=value;...". */
    private final Map<String, String> seen = new ConcurrentHashMap<>();
    private final CountDownLatch release = new CountDownLatch(1);

    private Outcome run(Job<Step> job) throws InterruptedException {
        runs.computeIfAbsent(job.args().name(), k -> new AtomicInteger()).incrementAndGet();
        if (job.workflow() != null) {
            StringBuilder parents = new StringBuilder();
            job.workflow().parentOutputs().forEach((step, json) -> {
                Result r = job.parentOutput(step, Result.class);
                parents.append(step).append('=').append(r == null ? "none" : r.from()).append(';');
            });
            seen.put(job.args().name(), parents.toString());
        }
        switch (job.args().does()) {
            case "discard":
                return Outcome.discard("step " + job.args().name() + " gives up");
            case "throw":
                throw new IllegalStateException("step " + job.args().name() + " fails");
            case "wait":
                if (!release.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released step " + job.args().name());
                }
                return Outcome.complete(new Result(job.args().name()));
            default:
                return Outcome.complete(new Result(job.args().name()));
        }
    }

    private Skipjack worker() {
        return client(builder().queue("wf", 4)
                .handler(STEP, KindOptions.defaults().withMaxAttempts(1), this::run)
                .transactionalHandler(TX_STEP, KindOptions.defaults().withMaxAttempts(1), (job, tx) -> run(job)));
    }

    private static JobRequest step(String name, String does) {
        return JobRequest.of(STEP, new Step(name, does), EnqueueOptions.defaults().withQueue("wf"));
    }

    private static JobRequest txStep(String name, String does) {
        return JobRequest.of(TX_STEP, new Step(name, does), EnqueueOptions.defaults().withQueue("wf"));
    }

    /**
     * a fails; b depends on a, c on b, d on a and x; x and y are independent of a (y after x). Two
     * failing branches: a discards (lease mode), f throws on its only attempt (transactional mode),
     * g depends on f.
     */
    private static Workflow branching(WorkflowPolicy policy) {
        return Workflow.named("branching").withPolicy(policy)
                .add("a", step("a", "discard"))
                .add("b", step("b", "complete"), dependsOn("a"))
                .add("c", step("c", "complete"), dependsOn("b"))
                .add("x", step("x", "complete"))
                .add("d", step("d", "complete"), dependsOn("a", "x"))
                .add("y", step("y", "complete"), dependsOn("x"))
                .add("f", txStep("f", "throw"))
                .add("g", txStep("g", "complete"), dependsOn("f"));
    }

    private WorkflowInfo awaitFinished(Skipjack s, long id) {
        await("workflow " + id + " to finish", WAIT, () -> s.admin().workflow(id).orElseThrow().state().isFinished());
        return s.admin().workflow(id).orElseThrow();
    }

    private static JobState state(WorkflowInfo w, String step) {
        return w.step(step).job().state();
    }

    @Test
    void underCancelNothingThatDependsOnAFailedJobEverRuns() {
        Skipjack s = worker();
        s.start();
        EnqueuedWorkflow w = s.enqueueWorkflow(branching(WorkflowPolicy.CANCEL));

        WorkflowInfo done = awaitFinished(s, w.id());

        assertThat(done.state()).as("a job was discarded").isEqualTo(WorkflowState.FAILED);
        assertThat(done.remaining()).isZero();
        assertThat(state(done, "a")).isEqualTo(JobState.DISCARDED);
        assertThat(state(done, "f")).as("out of attempts").isEqualTo(JobState.DISCARDED);
        for (String dependent : List.of("b", "c", "d", "g")) {
            assertThat(state(done, dependent)).as(dependent).isEqualTo(JobState.CANCELLED);
            assertThat(runs).as(dependent + " never ran").doesNotContainKey(dependent);
            JobError why = last(done.step(dependent).job());
            assertThat(why.errorClass()).isEqualTo("DependencyFailed");
            assertThat(why.message()).contains("CANCEL");
        }
        assertThat(last(done.step("c").job()).message()).as("c waited for a through b")
                .contains("job " + w.jobId("a") + ",");
        assertThat(state(done, "x")).isEqualTo(JobState.COMPLETED);
        assertThat(state(done, "y")).as("independent of a").isEqualTo(JobState.COMPLETED);
        assertThat(runs.get("y")).hasValue(1);
    }

    @Test
    void underContinueAFailedJobCountsAsDoneForItsChildren() {
        Skipjack s = worker();
        s.start();
        EnqueuedWorkflow w = s.enqueueWorkflow(branching(WorkflowPolicy.CONTINUE));

        WorkflowInfo done = awaitFinished(s, w.id());

        assertThat(done.policy()).isEqualTo(WorkflowPolicy.CONTINUE);
        assertThat(done.state()).as("a job was discarded").isEqualTo(WorkflowState.FAILED);
        for (String step : List.of("b", "c", "d", "g", "x", "y")) {
            assertThat(state(done, step)).as(step).isEqualTo(JobState.COMPLETED);
            assertThat(runs.get(step)).as(step + " ran once").hasValue(1);
        }
        assertThat(seen.get("b")).as("a failed: no output").isEqualTo("a=none;");
        assertThat(seen.get("d")).isEqualTo("a=none;x=x;");
        assertThat(seen.get("c")).isEqualTo("b=b;");
        assertThat(done.step("d").satisfied()).containsExactly("a", "x");
    }

    @Test
    void anOperatorCancellingAWaitingJobCancelsItsDependentsAtOnce() {
        Skipjack s = worker();
        s.start();
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("operator")
                .add("a", step("a", "wait"))
                .add("b", step("b", "complete"), dependsOn("a"))
                .add("c", step("c", "complete"), dependsOn("b")));
        assertThat(s.find(w.jobId("b")).orElseThrow().state()).isEqualTo(JobState.WAITING);

        assertThat(s.admin().cancel(w.jobId("b"))).as("a waiting job can be cancelled").isTrue();

        WorkflowInfo now = s.admin().workflow(w.id()).orElseThrow();
        assertThat(state(now, "b")).isEqualTo(JobState.CANCELLED);
        assertThat(state(now, "c")).as("cancelled with b, in the same transaction").isEqualTo(JobState.CANCELLED);
        assertThat(now.remaining()).as("only a is left").isEqualTo(1);
        assertThat(now.state()).isEqualTo(WorkflowState.RUNNING);
        assertThat(s.admin().retry(w.jobId("b"))).as("a workflow's job is not retried alone").isFalse();
        assertThat(s.admin().delete(w.jobId("c"))).as("nor deleted alone").isFalse();

        release.countDown();
        WorkflowInfo done = awaitFinished(s, w.id());
        assertThat(done.state()).as("cancelled jobs, none discarded").isEqualTo(WorkflowState.CANCELLED);
        assertThat(state(done, "a")).isEqualTo(JobState.COMPLETED);
        assertThat(runs).doesNotContainKeys("b", "c");
    }

    @Test
    void anOperatorDiscardingAJobUnderContinueReleasesItsChildren() {
        Skipjack s = worker();
        s.start();
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("operator").withPolicy(WorkflowPolicy.CONTINUE)
                .add("a", step("a", "wait"))
                .add("b", step("b", "complete"), dependsOn("a"))
                .add("c", step("c", "complete"), dependsOn("b")));
        // b is discarded while it waits (a is held until then, so b cannot have been released and
        // run); under CONTINUE that counts as done for c.
        assertThat(s.admin().discard(w.jobId("b"))).isTrue();
        release.countDown();

        WorkflowInfo done = awaitFinished(s, w.id());
        assertThat(done.state()).isEqualTo(WorkflowState.FAILED);
        assertThat(state(done, "b")).isEqualTo(JobState.DISCARDED);
        assertThat(state(done, "c")).isEqualTo(JobState.COMPLETED);
        assertThat(runs).doesNotContainKey("b");
        assertThat(seen.get("c")).isEqualTo("b=none;");
    }

    /** The lease rescuer discarding a job on its last attempt is an end like any other. */
    @Test
    void aJobWhoseLastLeaseExpiredCancelsItsDependents() throws Exception {
        Skipjack s = client(builder().kind(STEP, KindOptions.defaults().withMaxAttempts(1)));
        SqlStatements sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("rescued")
                .add("a", step("a", "complete"))
                .add("b", step("b", "complete"), dependsOn("a"))
                .add("c", step("c", "complete"), dependsOn("a", "b")));
        ClaimedJob a;
        try (Connection c = dataSource.getConnection()) {
            List<ClaimedJob> claimed = new JobClaimer(sql, "gone", Duration.ofMinutes(5)).claim(c, "wf", Set.of(), 10);
            assertThat(claimed).extracting(ClaimedJob::id).containsExactly(w.jobId("a"));
            a = claimed.get(0);
        }
        execute("UPDATE " + jobsTable() + " SET lease_until = " + nowPlus(Duration.ofSeconds(-1)) + " WHERE id = " + a.id());

        assertThat(new LeaseRescuer(dataSource, sql).rescueAll()).isEqualTo(1);

        WorkflowInfo done = s.admin().workflow(w.id()).orElseThrow();
        assertThat(state(done, "a")).isEqualTo(JobState.DISCARDED);
        assertThat(last(done.step("a").job()).errorClass()).isEqualTo("LeaseExpired");
        assertThat(state(done, "b")).isEqualTo(JobState.CANCELLED);
        assertThat(state(done, "c")).isEqualTo(JobState.CANCELLED);
        assertThat(done.state()).isEqualTo(WorkflowState.FAILED);
        assertThat(done.remaining()).isZero();
    }

    private static JobError last(JobInfo job) {
        assertThat(job.errors()).as("job " + job.id() + " has an error history").isNotEmpty();
        return job.errors().get(job.errors().size() - 1);
    }
}
