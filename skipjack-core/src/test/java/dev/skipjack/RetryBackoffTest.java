package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * F-8: a failed job waits for its kind's retry policy, measured on the database clock, before it
 * runs again; and the default exponential policy stays within its documented bounds.
 */
class RetryBackoffTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    @Test
    void perKindFixedPolicyDelaysTheRetryOnTheDatabaseClock() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("flaky", Args.class),
                KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ofSeconds(2))), job -> {
                    calls.incrementAndGet();
                    if (job.attempt() == 1) {
                        throw new IllegalStateException("first try fails");
                    }
                    return Outcome.complete();
                }));
        s.start();
        long id = s.enqueue("flaky", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));

        await("first failure recorded", WAIT, () -> !row(id).errors().isEmpty());
        JobRow failed = row(id);
        JobRow.ErrorEntry error = failed.errors().get(0);
        assertThat(failed.state()).isEqualTo("retryable");
        assertThat(failed.attempt()).isEqualTo(1);
        assertThat(error.attempt()).isEqualTo(1);
        // run_at = database time of the failure + the policy's 2 s.
        assertThat(Duration.between(error.at(), failed.runAt()).toMillis()).isCloseTo(2_000L, within(50L));

        await("retried and completed", WAIT, () -> row(id).state().equals("completed"));
        JobRow done = row(id);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.errors()).hasSize(1);
        // The retry was claimed no earlier than its run_at, i.e. at least 2 s after the failure.
        assertThat(done.attemptedAt()).isAfterOrEqualTo(failed.runAt());
        assertThat(Duration.between(error.at(), done.attemptedAt())).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void transactionalModeMeasuresTheDelayFromTheFailureNotFromTheClaim() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(JobKind.of("slow-flaky", Args.class),
                KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ofSeconds(1))), (job, tx) -> {
                    Thread.sleep(700); // the work before the failure
                    throw new IllegalStateException("fails after working a while");
                }));
        s.start();
        long id = s.enqueue("slow-flaky", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));

        await("first failure recorded", WAIT, () -> !row(id).errors().isEmpty());
        JobRow failed = row(id);
        JobRow.ErrorEntry error = failed.errors().get(0);
        // The failure happened after the 700 ms of work, and the retry waits 1 s from then.
        assertThat(Duration.between(failed.attemptedAt(), error.at())).isGreaterThanOrEqualTo(Duration.ofMillis(700));
        assertThat(Duration.between(error.at(), failed.runAt()).toMillis()).isCloseTo(1_000L, within(50L));
        assertThat(Duration.between(failed.attemptedAt(), failed.runAt())).isGreaterThanOrEqualTo(Duration.ofMillis(1_700));
    }

    @Test
    void policyIsAskedWithTheAttemptThatFailed() {
        // Immediate retry after attempt 1, an hour after attempt 2: the second failure must use the latter.
        RetryPolicy policy = failedAttempt -> failedAttempt == 1 ? Duration.ZERO : Duration.ofHours(1);
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("flaky", Args.class),
                KindOptions.defaults().withRetryPolicy(policy), job -> {
                    throw new IllegalStateException("attempt " + job.attempt());
                }));
        s.start();
        long id = s.enqueue("flaky", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));

        await("two failures recorded", WAIT, () -> row(id).errors().size() == 2);
        JobRow r = row(id);
        assertThat(r.state()).isEqualTo("retryable");
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::attempt).containsExactly(1, 2);
        assertThat(Duration.between(r.errors().get(1).at(), r.runAt()).toMillis()).isCloseTo(3_600_000L, within(50L));
    }

    @Test
    void defaultPolicyWaitsAboutOneSecondAfterTheFirstFailure() {
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("flaky", Args.class), job -> {
            throw new IllegalStateException("fails");
        }));
        s.start();
        long id = s.enqueue("flaky", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));

        await("first failure recorded", WAIT, () -> !row(id).errors().isEmpty());
        JobRow r = row(id);
        long delay = Duration.between(r.errors().get(0).at(), r.runAt()).toMillis();
        assertThat(delay).isBetween(750L, 1_250L);
    }

    @Test
    void brokenPolicyStillRetriesTheJob() {
        AtomicInteger calls = new AtomicInteger();
        RetryPolicy broken = failedAttempt -> {
            throw new ArithmeticException("policy bug");
        };
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("flaky", Args.class),
                KindOptions.defaults().withRetryPolicy(broken), job -> {
                    calls.incrementAndGet();
                    if (job.attempt() == 1) {
                        throw new IllegalStateException("first try fails");
                    }
                    return Outcome.complete();
                }));
        s.start();
        long id = s.enqueue("flaky", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));

        await("retried and completed", WAIT, () -> row(id).state().equals("completed"));
        assertThat(row(id).attempt()).isEqualTo(2);
        assertThat(calls.get()).isEqualTo(2);
    }

    // ------------------------------------------------------------ the policy itself, no database

    @Test
    void exponentialStaysWithinJitterBoundsOfTheCappedBase() {
        Duration base = Duration.ofMillis(100);
        Duration max = Duration.ofSeconds(30);
        RetryPolicy policy = RetryPolicy.exponential(base, max);
        for (int attempt = 1; attempt <= 30; attempt++) {
            double nominal = Math.min(max.toMillis(), base.toMillis() * Math.pow(2, attempt - 1));
            long lowest = Long.MAX_VALUE;
            long highest = Long.MIN_VALUE;
            for (int i = 0; i < 2_000; i++) {
                long ms = policy.delayAfter(attempt).toMillis();
                lowest = Math.min(lowest, ms);
                highest = Math.max(highest, ms);
            }
            // Factor in [0.75, 1.25), rounded to whole milliseconds.
            assertThat(lowest).as("lowest delay after attempt %d", attempt).isGreaterThanOrEqualTo((long) Math.floor(nominal * 0.75));
            assertThat(highest).as("highest delay after attempt %d", attempt).isLessThanOrEqualTo((long) Math.ceil(nominal * 1.25));
            // And the jitter is real: 2,000 samples cover most of the range.
            assertThat(lowest).as("lowest delay after attempt %d", attempt).isLessThan((long) (nominal * 0.80));
            assertThat(highest).as("highest delay after attempt %d", attempt).isGreaterThan((long) (nominal * 1.20));
        }
    }

    @Test
    void exponentialDoublesUntilTheCap() {
        RetryPolicy policy = RetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofMinutes(1));
        // Attempt 1 is about 1 s, attempt 3 about 4 s, attempt 7 and later about the 60 s cap.
        assertThat(policy.delayAfter(1)).isBetween(Duration.ofMillis(750), Duration.ofMillis(1250));
        assertThat(policy.delayAfter(3)).isBetween(Duration.ofMillis(3000), Duration.ofMillis(5000));
        for (int attempt : new int[] {7, 8, 41, 1_000, Integer.MAX_VALUE}) {
            assertThat(policy.delayAfter(attempt)).as("attempt %d", attempt)
                    .isBetween(Duration.ofSeconds(45), Duration.ofSeconds(75));
        }
        // Nonsense attempt numbers are treated as the first.
        assertThat(policy.delayAfter(0)).isBetween(Duration.ofMillis(750), Duration.ofMillis(1250));
        assertThat(policy.delayAfter(-5)).isBetween(Duration.ofMillis(750), Duration.ofMillis(1250));
    }

    @Test
    void defaultPolicyIsCappedAtOneHour() {
        RetryPolicy policy = RetryPolicy.defaultPolicy();
        for (int i = 0; i < 1_000; i++) {
            assertThat(policy.delayAfter(100)).isLessThanOrEqualTo(Duration.ofMinutes(75))
                    .isGreaterThanOrEqualTo(Duration.ofMinutes(45));
        }
    }

    @Test
    void exponentialRefusesNonsenseBounds() {
        assertThatThrownBy(() -> RetryPolicy.exponential(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "retryPolicy");
        assertThatThrownBy(() -> RetryPolicy.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "retryPolicy");
        assertThatThrownBy(() -> RetryPolicy.fixed(Duration.ofSeconds(-1)))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "retryPolicy");
    }
}
