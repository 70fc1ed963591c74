package dev.skipjack;

import dev.skipjack.InvalidWorkflowException.Problem;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.skipjack.Workflow.dependsOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-14 with F-6: a workflow is enqueued whole or not at all, also inside the caller's transaction
 * (it exists if and only if that transaction commits), and a malformed one is refused where it is
 * built or enqueued, naming the problem and the steps involved, before anything is inserted.
 */
class WorkflowEnqueueTest extends EveryBackendTest {

    record Args(int n) {
    }

    static final JobKind<Args> WORK = JobKind.of("wf-work", Args.class);
    static final JobKind<Args> TWIN = JobKind.of("wf-work", Args.class);

    private static JobRequest work(int n) {
        return JobRequest.of(WORK, new Args(n));
    }

    private static Workflow threeSteps() {
        return Workflow.named("three")
                .add("a", work(1))
                .add("b", work(2), dependsOn("a"))
                .add("c", work(3), dependsOn("a", "b"));
    }

    private long rows(String table) {
        return queryLong("SELECT count(*) FROM " + table(table));
    }

    private void assertNothingInserted() {
        assertThat(rows("skipjack_workflows")).isZero();
        assertThat(rows("skipjack_jobs")).isZero();
        assertThat(rows("skipjack_job_dependencies")).isZero();
    }

    @Test
    void aWorkflowEnqueuedInATransactionThatRollsBackLeavesNothing() throws Exception {
        Skipjack s = client(builder().kind(WORK));
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            EnqueuedWorkflow w = s.enqueueWorkflow(c, threeSteps());
            assertThat(count(c, "skipjack_jobs")).as("visible in the caller's transaction").isEqualTo(3);
            assertThat(count(c, "skipjack_job_dependencies")).isEqualTo(3);
            assertThat(w.jobIds()).containsOnlyKeys("a", "b", "c");
            c.rollback();
        }
        assertNothingInserted();
    }

    @Test
    void aWorkflowEnqueuedInATransactionThatCommitsRuns() throws Exception {
        Skipjack s = client(builder().queue("default", 2).handler(WORK, job -> Outcome.complete(job.args())));
        EnqueuedWorkflow w;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            w = s.enqueueWorkflow(c, threeSteps());
            c.commit();
        }
        s.start();
        await("the workflow to finish", Duration.ofSeconds(60),
                () -> s.admin().workflow(w.id()).orElseThrow().state() == WorkflowState.COMPLETED);
        WorkflowInfo done = s.admin().workflow(w.id()).orElseThrow();
        assertThat(done.steps()).extracting(WorkflowInfo.Step::name).containsExactly("a", "b", "c");
        assertThat(done.step("c").dependsOn()).containsExactly("a", "b");
    }

    @Test
    void malformedWorkflowsAreRefusedNamingTheProblemAndTheSteps() {
        Skipjack s = client(builder().kind(WORK));

        assertRefused(() -> s.enqueueWorkflow(Workflow.named("empty")), Problem.EMPTY, List.of());
        assertRefused(() -> Workflow.named("dup").add("a", work(1)).add("a", work(2)), Problem.DUPLICATE_STEP, List.of("a"));
        assertRefused(() -> Workflow.named("dup").add("b", work(1), dependsOn("a", "a")), Problem.DUPLICATE_STEP,
                List.of("a", "a"));
        assertRefused(() -> s.enqueueWorkflow(Workflow.named("typo").add("a", work(1)).add("b", work(2), dependsOn("aa"))),
                Problem.UNKNOWN_PARENT, List.of("b", "aa"));
        assertRefused(() -> Workflow.named("self").add("a", work(1), dependsOn("a")), Problem.CYCLE, List.of("a", "a"));
        InvalidWorkflowException cycle = assertRefused(() -> s.enqueueWorkflow(Workflow.named("circle")
                        .add("start", work(0))
                        .add("a", work(1), dependsOn("start", "c"))
                        .add("b", work(2), dependsOn("a"))
                        .add("c", work(3), dependsOn("b"))
                        .add("after", work(4), dependsOn("c"))),
                Problem.CYCLE, null);
        assertThat(cycle.steps()).as("the steps around the circle, first repeated last").hasSize(4)
                .containsOnly("a", "b", "c");
        assertThat(cycle.steps().get(0)).isEqualTo(cycle.steps().get(3));
        assertThat(cycle.getMessage()).contains(String.join(" -> ", cycle.steps()));
        assertRefused(() -> Workflow.named("bad name!"), Problem.INVALID_NAME, List.of("bad name!"));
        assertRefused(() -> Workflow.named("w").add("", work(1)), Problem.INVALID_NAME, List.of(""));
        assertRefused(() -> Workflow.named("w").add("b", work(1), dependsOn("no spaces")), Problem.INVALID_NAME,
                List.of("no spaces"));
        Workflow full = Workflow.named("big");
        for (int i = 0; i < Workflow.MAX_STEPS; i++) {
            full = full.add("s" + i, work(i));
        }
        Workflow atTheLimit = full;
        assertRefused(() -> atTheLimit.add("one-more", work(0)), Problem.TOO_MANY_STEPS, List.of("one-more"));
        assertRefused(() -> s.enqueueWorkflow(Workflow.named("unique").add("a", JobRequest.of(WORK, new Args(1),
                        EnqueueOptions.defaults().withUnique(Unique.byKey("k"))))),
                Problem.UNSUPPORTED_OPTION, List.of("a"));
        assertThatThrownBy(() -> s.enqueueWorkflow(Workflow.named("unknown").add("a", work(1))
                .add("b", JobRequest.of("no-such-kind", Map.of()), dependsOn("a"))))
                .as("a step's request is checked as enqueue checks it").isInstanceOf(UnknownKindException.class);
        assertThatThrownBy(() -> s.enqueueWorkflow(Workflow.named("priority")
                .add("a", JobRequest.of(WORK, new Args(1), EnqueueOptions.defaults().withQueue("Not A Queue")))))
                .isInstanceOf(InvalidOptionException.class);

        assertNothingInserted();
        EnqueuedWorkflow big = s.enqueueWorkflow(atTheLimit);
        assertThat(big.jobIds()).hasSize(Workflow.MAX_STEPS);
    }

    @Test
    void oneKindNameWithTwoArgsTypesIsStillRefused() {
        Skipjack s = client(builder().kind(JobKind.of("wf-work", String.class)));
        assertThatThrownBy(() -> s.enqueueWorkflow(Workflow.named("w").add("a", JobRequest.of(TWIN, new Args(1)))))
                .isInstanceOf(InvalidConfigurationException.class);
        assertNothingInserted();
    }

    private static InvalidWorkflowException assertRefused(Runnable call, Problem problem, List<String> steps) {
        try {
            call.run();
        } catch (InvalidWorkflowException e) {
            assertThat(e.problem()).as(e.getMessage()).isEqualTo(problem);
            if (steps != null) {
                assertThat(e.steps()).as(e.getMessage()).isEqualTo(steps);
            }
            assertThat(e).isInstanceOf(InvalidJobException.class);
            return e;
        }
        throw new AssertionError("expected " + problem + " to be refused");
    }

    private long count(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table(table));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
