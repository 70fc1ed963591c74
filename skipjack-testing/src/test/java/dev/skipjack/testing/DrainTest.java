package dev.skipjack.testing;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.JobState;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.RetryPolicy;
import dev.skipjack.Skipjack;
import dev.skipjack.Workflow;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SkipjackTester#drain()}: every due job runs, with the jobs those jobs enqueue or release
 * and the retries the database clock makes due, until none is left; a runaway stops at a bound.
 */
class DrainTest extends EveryBackendTest {

    static final JobKind<Integer> COUNTDOWN = JobKind.of("countdown", Integer.class);
    static final JobKind<String> STEP = JobKind.of("step", String.class);
    static final JobKind<String> OTHER_SERVICE = JobKind.of("other-service", String.class);

    @Test
    void runsTheJobsThatJobsEnqueueUntilNoneIsLeft() {
        AtomicReference<Skipjack> self = new AtomicReference<>();
        Skipjack skipjack = client(builder().handler(COUNTDOWN, job -> {
            if (job.args() > 0) {
                self.get().enqueue(COUNTDOWN, job.args() - 1);
            }
            return Outcome.complete();
        }));
        self.set(skipjack);
        skipjack.enqueue(COUNTDOWN, 3);

        DrainResult drained = SkipjackTester.of(skipjack).drain();

        assertThat(drained.count()).isEqualTo(4);
        assertThat(drained.runs()).extracting(JobInfo::argsJson).containsExactly("3", "2", "1", "0");
        assertThat(drained.countByState()).containsExactly(org.assertj.core.api.Assertions.entry(JobState.COMPLETED, 4L));
    }

    @Test
    void runsAWorkflowsChildrenOnceTheirParentsCompleted() {
        List<String> ran = new CopyOnWriteArrayList<>();
        Skipjack skipjack = client(builder().handler(STEP, job -> {
            ran.add(job.args());
            return Outcome.complete();
        }));
        skipjack.enqueueWorkflow(Workflow.named("pipeline")
                .add("fetch", JobRequest.of(STEP, "fetch"))
                .add("parse", JobRequest.of(STEP, "parse"), Workflow.dependsOn("fetch"))
                .add("store", JobRequest.of(STEP, "store"), Workflow.dependsOn("parse")));

        DrainResult drained = SkipjackTester.of(skipjack).drain();

        assertThat(ran).containsExactly("fetch", "parse", "store");
        assertThat(drained.jobs(JobState.COMPLETED)).hasSize(3);
    }

    @Test
    void jobsWaitingForASlotOfTheirKindsLimitRunAsTheJobsBeforeThemEnd() {
        JobKind<String> limited = JobKind.of("one-at-a-time", String.class).limitedTo(1);
        List<String> ran = new CopyOnWriteArrayList<>();
        Skipjack skipjack = client(builder().handler(limited, job -> {
            ran.add(job.args());
            return Outcome.complete();
        }));
        skipjack.enqueue(limited, "first");
        skipjack.enqueue(limited, "second");
        skipjack.enqueue(limited, "third");
        SkipjackTester tester = SkipjackTester.of(skipjack);
        assertThat(tester.enqueued(JobMatcher.kind(limited).state(JobState.WAITING))).hasSize(2);

        DrainResult drained = tester.drain();

        assertThat(ran).containsExactly("first", "second", "third");
        assertThat(drained.jobs(JobState.COMPLETED)).hasSize(3);
    }

    @Test
    void aRetryRunsInADrainOnceTheClockMadeItDue() {
        AtomicInteger attempts = new AtomicInteger();
        Skipjack skipjack = client(builder().handler(STEP,
                KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ofMinutes(5))), job -> {
                    if (attempts.incrementAndGet() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    return Outcome.complete();
                }));
        long id = skipjack.enqueue(STEP, "flaky");
        SkipjackTester tester = SkipjackTester.of(skipjack);

        DrainResult first = tester.drain();
        assertThat(first.count()).isEqualTo(1);
        assertThat(first.jobs(JobState.RETRYABLE)).extracting(JobInfo::id).containsExactly(id);

        tester.advanceClock(Duration.ofMinutes(5));
        DrainResult second = tester.drain();

        assertThat(second.count()).isEqualTo(1);
        assertThat(second.jobs(JobState.COMPLETED)).extracting(JobInfo::id).containsExactly(id);
    }

    @Test
    void drainingOneQueueLeavesTheOthersAndKindsWithoutAHandlerAreLeftAlone() {
        Skipjack skipjack = client(builder().handler(STEP, job -> Outcome.complete()).kind(OTHER_SERVICE));
        long inA = skipjack.enqueue(STEP, "a", EnqueueOptions.defaults().withQueue("a"));
        long inB = skipjack.enqueue(STEP, "b", EnqueueOptions.defaults().withQueue("b"));
        long foreign = skipjack.enqueue(OTHER_SERVICE, "x", EnqueueOptions.defaults().withQueue("a"));

        DrainResult drained = SkipjackTester.of(skipjack).drain("a");

        assertThat(drained.runs()).extracting(JobInfo::id).containsExactly(inA);
        assertThat(skipjack.find(inB).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
        assertThat(skipjack.find(foreign).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
    }

    @Test
    void aJobThatEnqueuesItselfForeverStopsAtTheLimitWithAMessage() {
        AtomicReference<Skipjack> self = new AtomicReference<>();
        Skipjack skipjack = client(builder().handler(STEP, job -> {
            self.get().enqueue(STEP, "again");
            return Outcome.complete();
        }));
        self.set(skipjack);
        skipjack.enqueue(STEP, "again");

        assertThatThrownBy(() -> SkipjackTester.of(skipjack).withDrainLimit(10).drain())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("drain stopped after 10 runs with 1 jobs still available (runs by kind: {step=10})")
                .hasMessageContaining("withDrainLimit")
                .hasMessageContaining("args=\"again\"");
        assertThatThrownBy(() -> SkipjackTester.of(skipjack).withDrainLimit(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("drain limit must be at least 1, got 0");
    }
}
