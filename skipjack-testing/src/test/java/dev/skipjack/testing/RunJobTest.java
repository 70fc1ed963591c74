package dev.skipjack.testing;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobState;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.UnknownKindException;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link SkipjackTester#run}: a job runs once, on the test's thread, through its registered
 * handler and the worker's path (claim, args, outcome rules, transaction), and comes back as the
 * database holds it.
 */
class RunJobTest extends EveryBackendTest {

    record Greet(String name) {
    }

    static final JobKind<Greet> GREET = JobKind.of("greet", Greet.class);
    static final JobKind<Greet> GREET_TX = JobKind.of("greet-tx", Greet.class);

    @Test
    void aLeaseModeJobRunsOnTheCallingThreadAndItsOutcomeIsInTheDatabase() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        Skipjack skipjack = client(builder().handler(GREET, job -> {
            ranOn.set(Thread.currentThread());
            return Outcome.complete(Map.of("greeting", "hello " + job.args().name()));
        }));

        JobInfo job = SkipjackTester.of(skipjack).enqueueAndRun(GREET, new Greet("ada"));

        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.outputJson()).contains("hello ada");
        assertThat(skipjack.find(job.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void aFailingHandlerLeavesTheJobRetryableWithItsErrorAndBackoff() {
        Skipjack skipjack = client(builder().handler(GREET, job -> {
            throw new IllegalStateException("mail server down");
        }));

        JobInfo job = SkipjackTester.of(skipjack).enqueueAndRun(GREET, new Greet("ada"));

        assertThat(job.state()).isEqualTo(JobState.RETRYABLE);
        assertThat(job.errors()).singleElement().satisfies(e -> {
            assertThat(e.errorClass()).contains("IllegalStateException");
            assertThat(e.message()).isEqualTo("mail server down");
        });
        assertThat(job.runAt()).isAfter(job.attemptedAt());
    }

    @Test
    void theLastAttemptFailingDiscardsTheJob() {
        Skipjack skipjack = client(builder().handler(GREET, KindOptions.defaults().withMaxAttempts(1), job -> {
            throw new IllegalStateException("no");
        }));

        JobInfo job = SkipjackTester.of(skipjack).enqueueAndRun(GREET, new Greet("ada"));

        assertThat(job.state()).isEqualTo(JobState.DISCARDED);
    }

    @Test
    void argsThatDoNotFitTheKindAreDiscardedAsAWorkerWould() {
        Skipjack skipjack = client(builder().handler(GREET, job -> Outcome.complete()));
        // Another service's client, whose idea of the args differs (the enqueue check passes there).
        Skipjack otherService = client(builder().kind(JobKind.of("greet", Object.class)));
        long id = otherService.enqueue("greet", List.of(1, 2, 3));

        JobInfo job = SkipjackTester.of(skipjack).run(id);

        assertThat(job.state()).isEqualTo(JobState.DISCARDED);
        assertThat(job.errors()).singleElement().satisfies(e -> assertThat(e.errorClass()).isEqualTo("InvalidArgs"));
    }

    @Test
    void aTransactionalHandlersWritesCommitWithItsCompletionAndRollBackWithItsFailure() {
        Skipjack skipjack = client(builder().transactionalHandler(GREET_TX, (job, tx) -> {
            try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + table("greetings") + " (name) VALUES (?)")) {
                ps.setString(1, job.args().name());
                ps.executeUpdate();
            }
            if (job.args().name().equals("fail")) {
                throw new IllegalStateException("rolled back");
            }
            return Outcome.complete();
        }));
        execute("CREATE TABLE " + table("greetings") + " (name VARCHAR(100))");
        SkipjackTester tester = SkipjackTester.of(skipjack);

        assertThat(tester.enqueueAndRun(GREET_TX, new Greet("ada")).state()).isEqualTo(JobState.COMPLETED);
        assertThat(tester.enqueueAndRun(GREET_TX, new Greet("fail")).state()).isEqualTo(JobState.RETRYABLE);

        assertThat(queryLong("SELECT COUNT(*) FROM " + table("greetings"))).isEqualTo(1);
        assertThat(queryLong("SELECT COUNT(*) FROM " + table("greetings") + " WHERE name = 'ada'")).isEqualTo(1);
    }

    @Test
    void aTwoPhaseHandlerPreparesCallsAndCommits() {
        assumeTrue(backend == TestBackend.POSTGRESQL, "two-phase kinds run on PostgreSQL only");
        AtomicReference<String> called = new AtomicReference<>();
        Skipjack skipjack = client(builder().twoPhaseHandler(GREET_TX, new dev.skipjack.TwoPhaseJobHandler<>() {
            @Override
            public Outcome prepare(dev.skipjack.Job<Greet> job, java.sql.Connection tx) {
                return Outcome.complete();
            }

            @Override
            public void callExternal(dev.skipjack.Job<Greet> job) {
                called.set(job.args().name());
            }

            @Override
            public boolean externalEffectHappened(long jobId, int attempt) {
                return called.get() != null;
            }
        }));

        JobInfo job = SkipjackTester.of(skipjack).enqueueAndRun(GREET_TX, new Greet("ada"));

        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(called.get()).isEqualTo("ada");
    }

    @Test
    void aJobThatIsNotDueIsNotRunAndTheFailureSaysWhy() {
        Skipjack skipjack = client(builder().handler(GREET, job -> Outcome.complete()));
        long id = skipjack.enqueue(GREET, new Greet("ada"), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));

        assertThatThrownBy(() -> SkipjackTester.of(skipjack).run(id))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("job " + id + " (kind 'greet', queue 'default') was not run")
                .hasMessageContaining("it is scheduled until")
                .hasMessageContaining("advanceClock");
        assertThat(skipjack.find(id).orElseThrow().attempt()).isZero();
    }

    @Test
    void aCompletedJobIsNotRunAgain() {
        Skipjack skipjack = client(builder().handler(GREET, job -> Outcome.complete()));
        SkipjackTester tester = SkipjackTester.of(skipjack);
        long id = tester.enqueueAndRun(GREET, new Greet("ada")).id();

        assertThatThrownBy(() -> tester.run(id))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("it has ended: completed");
    }

    @Test
    void aKindWithoutAHandlerOnThisClientIsRefusedByName() {
        Skipjack producer = client(builder().kind(GREET));
        long id = producer.enqueue(GREET, new Greet("ada"));

        assertThatThrownBy(() -> SkipjackTester.of(producer).run(id))
                .isInstanceOf(UnknownKindException.class)
                .hasMessageContaining("kind 'greet', which has no handler on this client");
        assertThatThrownBy(() -> SkipjackTester.of(producer).run(id + 1000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no job with id " + (id + 1000));
    }
}
