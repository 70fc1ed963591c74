package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.skipjack.Workflow.dependsOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-14 with F-19: retention never deletes a job of a workflow that has not finished, even with a
 * retention of zero, so a step's parents (and their outputs) stay for it and the workflow can
 * finish (oban-bg/oban#722: the pruner deleted finished upstream jobs and the workflow never
 * finished). A finished workflow is deleted whole, jobs, edges and row together.
 */
class WorkflowRetentionTest extends EveryBackendTest {

    record Args(String name) {
    }

    static final JobKind<Args> STEP = JobKind.of("wf-retained", Args.class);
    static final JobKind<Args> PLAIN = JobKind.of("plain", Args.class);
    static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void retentionOfZeroLeavesARunningWorkflowWholeAndDeletesItOnceFinished() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Skipjack s = client(builder().queue("default", 4)
                .pruneInterval(Duration.ofMillis(100))
                .retention(JobState.COMPLETED, Duration.ZERO)
                .retention(JobState.CANCELLED, Duration.ZERO)
                .retention(JobState.DISCARDED, Duration.ZERO)
                .handler(PLAIN, job -> Outcome.complete())
                .handler(STEP, job -> {
                    if (job.args().name().equals("last") && !release.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    String from = job.workflow().parentOutputs().isEmpty() ? "" : job.parentOutput("first", Args.class).name();
                    return Outcome.complete(new Args(from + "+" + job.args().name()));
                }));
        s.start();
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("slow")
                .add("first", JobRequest.of(STEP, new Args("first")))
                .add("last", JobRequest.of(STEP, new Args("last")), dependsOn("first")));
        long first = w.jobId("first");
        await("first to complete", WAIT, () -> s.find(first).orElseThrow().state() == JobState.COMPLETED);

        // Two jobs outside the workflow that finish after first did: once both are pruned, rounds
        // ran that found first old enough to delete, had it not been a running workflow's.
        for (int round = 0; round < 2; round++) {
            long plain = s.enqueue(PLAIN, new Args("plain-" + round));
            await("plain job " + plain + " to be pruned", WAIT, () -> s.find(plain).isEmpty());
        }
        WorkflowInfo running = s.admin().workflow(w.id()).orElseThrow();
        assertThat(running.state()).isEqualTo(WorkflowState.RUNNING);
        assertThat(running.step("first").job().state()).as("kept while its workflow runs").isEqualTo(JobState.COMPLETED);
        assertThat(running.step("last").dependsOn()).containsExactly("first");

        release.countDown();
        await("the finished workflow to be pruned whole", WAIT, () -> s.admin().workflow(w.id()).isEmpty());
        assertThat(s.find(first)).isEmpty();
        assertThat(s.find(w.jobId("last"))).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM " + table("skipjack_job_dependencies"))).as("edges go too").isZero();
    }

    @Test
    void aFinishedWorkflowIsKeptForItsStatesRetention() {
        Skipjack s = client(builder().queue("default", 2)
                .pruneInterval(Duration.ofMillis(100))
                .retention(JobState.COMPLETED, Duration.ZERO)
                .retention(JobState.DISCARDED, Duration.ofDays(7))
                .handler(PLAIN, job -> Outcome.complete())
                .handler(STEP, job -> job.args().name().equals("fails") ? Outcome.discard("no") : Outcome.complete()));
        s.start();
        EnqueuedWorkflow failed = s.enqueueWorkflow(Workflow.named("failed")
                .add("ok", JobRequest.of(STEP, new Args("ok")))
                .add("fails", JobRequest.of(STEP, new Args("fails")), dependsOn("ok")));
        EnqueuedWorkflow completed = s.enqueueWorkflow(Workflow.named("completed")
                .add("ok", JobRequest.of(STEP, new Args("ok"))));

        await("the completed workflow to be pruned", WAIT, () -> s.admin().workflow(completed.id()).isEmpty());
        await("the failed one to finish", WAIT, () -> s.admin().workflow(failed.id()).orElseThrow().state().isFinished());
        long plain = s.enqueue(PLAIN, new Args("plain"));
        await("a later round", WAIT, () -> s.find(plain).isEmpty());

        WorkflowInfo kept = s.admin().workflow(failed.id()).orElseThrow();
        assertThat(kept.state()).isEqualTo(WorkflowState.FAILED);
        assertThat(kept.step("ok").job().state()).as("its completed job goes with it, after 7 days").isEqualTo(JobState.COMPLETED);
    }
}
