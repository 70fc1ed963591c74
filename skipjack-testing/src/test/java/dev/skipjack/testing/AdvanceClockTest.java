package dev.skipjack.testing;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SkipjackTester#advanceClock}: jobs due later on the database clock become due as if that
 * much time had passed, without sleeping.
 */
class AdvanceClockTest extends EveryBackendTest {

    static final JobKind<String> REMIND = JobKind.of("remind", String.class);

    @Test
    void aDelayedJobRunsOnceTheClockPassedItsDelay() {
        Skipjack skipjack = client(builder().handler(REMIND, job -> Outcome.complete()));
        long id = skipjack.enqueue(REMIND, "tomorrow", EnqueueOptions.defaults().withDelay(Duration.ofDays(1)));
        SkipjackTester tester = SkipjackTester.of(skipjack);

        tester.advanceClock(Duration.ofHours(23));
        assertThatThrownBy(() -> tester.run(id)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("it is scheduled until");

        assertThat(tester.advanceClock(Duration.ofHours(1))).isEqualTo(Duration.ofDays(1));
        assertThat(tester.run(id).state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void aSnoozedJobComesBackWhenTheClockPassedTheSnooze() {
        AtomicInteger runs = new AtomicInteger();
        Skipjack skipjack = client(builder().handler(REMIND,
                job -> runs.incrementAndGet() == 1 ? Outcome.snooze(Duration.ofMinutes(10)) : Outcome.complete()));
        SkipjackTester tester = SkipjackTester.of(skipjack);
        long id = skipjack.enqueue(REMIND, "later");

        assertThat(tester.run(id).state()).isEqualTo(JobState.SCHEDULED);
        assertThat(tester.drain().count()).isZero();

        tester.advanceClock(Duration.ofMinutes(10));

        assertThat(tester.drain().jobs(JobState.COMPLETED)).hasSize(1);
        assertThat(runs).hasValue(2);
    }

    @Test
    void resetGoesBackToTheDatabasesTimeAndTheClockOnlyMovesForward() {
        Skipjack skipjack = client(builder().handler(REMIND, job -> Outcome.complete()));
        SkipjackTester tester = SkipjackTester.of(skipjack);
        tester.advanceClock(Duration.ofMinutes(3));

        tester.resetClock();

        assertThat(skipjack.clock().offset()).isZero();
        assertThatThrownBy(() -> tester.advanceClock(Duration.ofMinutes(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("advanceClock moves the clock forward; got PT-1M");
    }
}
