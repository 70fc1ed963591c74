package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * F-8: what each handler outcome does to the job row — state, attempt, max_attempts and the error
 * history — read back with plain SQL.
 */
class OutcomesTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);
    /** Failures come back at once, so multi-attempt cases stay fast. */
    private static final KindOptions IMMEDIATE_RETRY = KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ZERO));

    private Skipjack started(int concurrency, KindOptions options, JobHandler<Args> handler) {
        Skipjack s = client(builder().queue("default", concurrency).handler(JobKind.of("work", Args.class), options, handler));
        s.start();
        return s;
    }

    private JobRow awaitRow(long id, String state) {
        await("job " + id + " to be " + state, WAIT, () -> JobRow.load(dataSource, schema, id).state().equals(state));
        return JobRow.load(dataSource, schema, id);
    }

    @Test
    void completeMarksTheJobCompletedAfterOneAttempt() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            calls.incrementAndGet();
            return Outcome.complete();
        });
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));

        JobRow row = awaitRow(id, "completed");
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(row.maxAttempts()).isEqualTo(5);
        assertThat(row.errors()).isEmpty();
        assertThat(row.finishedAt()).isNotNull().isAfterOrEqualTo(row.attemptedAt());
        assertThat(row.leaseUntil()).isNull();
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void nullOutcomeCountsAsComplete() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            calls.incrementAndGet();
            return null;
        });
        long id = s.enqueue("work", new Args(1));

        JobRow row = awaitRow(id, "completed");
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(row.errors()).isEmpty();
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void retryWithDelayRecordsTheReasonAndMovesRunAtOnTheDatabaseClock() {
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> Outcome.retry(Duration.ofHours(1), "not yet"));
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(4));

        JobRow row = awaitRow(id, "retryable");
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(row.maxAttempts()).isEqualTo(4);
        assertThat(row.finishedAt()).isNull();
        assertThat(row.leaseUntil()).isNull();
        assertThat(row.errors()).hasSize(1);
        JobRow.ErrorEntry e = row.errors().get(0);
        assertThat(e.errorClass()).isEqualTo("Retry");
        assertThat(e.message()).isEqualTo("not yet");
        assertThat(e.attempt()).isEqualTo(1);
        assertThat(e.stack()).isNull();
        assertThat(e.worker()).isEqualTo(s.workerId());
        assertThat(Duration.between(e.at(), row.runAt()).toMillis()).isCloseTo(3_600_000L, within(1_000L));
    }

    @Test
    void retriedJobRunsAgainWithTheNextAttemptAfterItsDelay() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            calls.incrementAndGet();
            return job.attempt() == 1 ? Outcome.retry(Duration.ofMillis(300), "again") : Outcome.complete();
        });
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));

        JobRow row = awaitRow(id, "completed");
        assertThat(row.attempt()).isEqualTo(2);
        assertThat(row.maxAttempts()).isEqualTo(3);
        assertThat(row.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("Retry");
        assertThat(row.errors().get(0).attempt()).isEqualTo(1);
        // The second attempt was claimed no earlier than the retry delay after the first one failed.
        assertThat(row.attemptedAt()).isAfterOrEqualTo(row.errors().get(0).at().plusMillis(300));
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void retryOnTheLastAttemptDiscards() {
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> Outcome.retry("still failing"));
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));

        JobRow row = awaitRow(id, "discarded");
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(row.finishedAt()).isNotNull();
        assertThat(row.errors()).extracting(JobRow.ErrorEntry::errorClass, JobRow.ErrorEntry::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("Retry", "still failing"));
    }

    @Test
    void snoozeDoesNotSpendAnAttempt() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            calls.incrementAndGet();
            return job.attempt() == 1 ? Outcome.snooze(Duration.ZERO) : Outcome.complete();
        });
        // One attempt only: had the snooze spent it, the job could never run again.
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));

        JobRow row = awaitRow(id, "completed");
        assertThat(row.attempt()).isEqualTo(2);
        assertThat(row.maxAttempts()).isEqualTo(2);
        assertThat(row.errors()).isEmpty();
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void snoozeWithDelaySchedulesTheJobAndGivesTheAttemptBack() {
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> Outcome.snooze(Duration.ofHours(1)));
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));

        JobRow row = awaitRow(id, "scheduled");
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(row.maxAttempts()).isEqualTo(4);
        assertThat(row.errors()).isEmpty();
        assertThat(row.leaseUntil()).isNull();
        assertThat(row.finishedAt()).isNull();
        Duration fromClaim = Duration.between(row.attemptedAt(), row.runAt());
        assertThat(fromClaim).isBetween(Duration.ofHours(1), Duration.ofHours(1).plusSeconds(10));
    }

    @Test
    void discardEndsTheJobAtOnceWithTheReason() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            calls.incrementAndGet();
            return Outcome.discard("bad data");
        });
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));

        JobRow row = awaitRow(id, "discarded");
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(row.maxAttempts()).isEqualTo(5);
        assertThat(row.finishedAt()).isNotNull();
        assertThat(row.leaseUntil()).isNull();
        assertThat(row.errors()).hasSize(1);
        assertThat(row.errors().get(0).errorClass()).isEqualTo("Discarded");
        assertThat(row.errors().get(0).message()).isEqualTo("bad data");
        assertThat(row.errors().get(0).attempt()).isEqualTo(1);
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void cancelEndsTheJobAtOnceWithTheReason() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            calls.incrementAndGet();
            return Outcome.cancel("customer left");
        });
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(5));

        JobRow row = awaitRow(id, "cancelled");
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(row.maxAttempts()).isEqualTo(5);
        assertThat(row.finishedAt()).isNotNull();
        assertThat(row.errors()).hasSize(1);
        assertThat(row.errors().get(0).errorClass()).isEqualTo("Cancelled");
        assertThat(row.errors().get(0).message()).isEqualTo("customer left");
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void thrownExceptionFailsTheAttemptWithClassMessageAndStack() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            calls.incrementAndGet();
            if (job.attempt() == 1) {
                throw new IllegalStateException("boom on attempt 1");
            }
            return Outcome.complete();
        });
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));

        JobRow row = awaitRow(id, "completed");
        assertThat(row.attempt()).isEqualTo(2);
        assertThat(row.maxAttempts()).isEqualTo(3);
        assertThat(row.errors()).hasSize(1);
        JobRow.ErrorEntry e = row.errors().get(0);
        assertThat(e.errorClass()).isEqualTo("java.lang.IllegalStateException");
        assertThat(e.message()).isEqualTo("boom on attempt 1");
        assertThat(e.attempt()).isEqualTo(1);
        assertThat(e.worker()).isEqualTo(s.workerId());
        assertThat(e.at()).isNotNull();
        assertThat(e.stack()).contains("java.lang.IllegalStateException: boom on attempt 1")
                .contains(OutcomesTest.class.getName());
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void checkedExceptionFailsTheAttemptToo() {
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            throw new java.io.IOException("disk on fire");
        });
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));

        JobRow row = awaitRow(id, "discarded");
        assertThat(row.errors()).hasSize(1);
        assertThat(row.errors().get(0).errorClass()).isEqualTo("java.io.IOException");
        assertThat(row.errors().get(0).message()).isEqualTo("disk on fire");
        assertThat(row.errors().get(0).stack()).contains("java.io.IOException: disk on fire");
    }

    @Test
    void runningOutOfAttemptsDiscardsAndKeepsEveryAttemptsError() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = started(2, IMMEDIATE_RETRY, job -> {
            calls.incrementAndGet();
            throw new IllegalArgumentException("boom " + job.attempt());
        });
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(3));

        JobRow row = awaitRow(id, "discarded");
        assertThat(row.attempt()).isEqualTo(3);
        assertThat(row.maxAttempts()).isEqualTo(3);
        assertThat(row.finishedAt()).isNotNull();
        assertThat(row.errors()).extracting(JobRow.ErrorEntry::attempt).containsExactly(1, 2, 3);
        assertThat(row.errors()).extracting(JobRow.ErrorEntry::message).containsExactly("boom 1", "boom 2", "boom 3");
        assertThat(row.errors()).allSatisfy(e -> {
            assertThat(e.errorClass()).isEqualTo("java.lang.IllegalArgumentException");
            assertThat(e.stack()).isNotBlank();
            assertThat(e.at()).isNotNull();
        });
        assertThat(row.errors().get(0).at()).isBeforeOrEqualTo(row.errors().get(1).at());
        assertThat(row.errors().get(1).at()).isBeforeOrEqualTo(row.errors().get(2).at());
        assertThat(calls.get()).isEqualTo(3);
    }

    @Test
    void handlerThrowingAnErrorIsRecordedAndTheWorkerKeepsRunningJobs() {
        // One slot: if an Error killed the job thread or leaked the slot, nothing after it would run.
        Skipjack s = started(1, IMMEDIATE_RETRY, job -> {
            switch (job.args().n()) {
                case 1:
                    return recurse(0);
                case 2:
                    throw new AssertionError("kaboom");
                case 3:
                    throw new NoClassDefFoundError("com/example/Missing");
                default:
                    return Outcome.complete();
            }
        });
        EnqueueOptions once = EnqueueOptions.defaults().withMaxAttempts(1);
        long overflow = s.enqueue("work", new Args(1), once.withPriority(0));
        long assertion = s.enqueue("work", new Args(2), once.withPriority(0));
        long linkage = s.enqueue("work", new Args(3), once.withPriority(0));
        List<Long> healthy = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            healthy.add(s.enqueue("work", new Args(10 + i), once.withPriority(5)));
        }

        for (long id : healthy) {
            awaitRow(id, "completed");
        }
        JobRow so = awaitRow(overflow, "discarded");
        assertThat(so.errors()).hasSize(1);
        assertThat(so.errors().get(0).errorClass()).isEqualTo("java.lang.StackOverflowError");
        assertThat(so.errors().get(0).stack()).contains("StackOverflowError");
        JobRow ae = awaitRow(assertion, "discarded");
        assertThat(ae.errors()).extracting(JobRow.ErrorEntry::errorClass, JobRow.ErrorEntry::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("java.lang.AssertionError", "kaboom"));
        JobRow le = awaitRow(linkage, "discarded");
        assertThat(le.errors().get(0).errorClass()).isEqualTo("java.lang.NoClassDefFoundError");
    }

    private static Outcome recurse(int depth) {
        Outcome o = recurse(depth + 1);
        return depth < 0 ? o : null;
    }
}
