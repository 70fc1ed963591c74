package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-13: jobs that share a sequence key run one at a time, in the order they were enqueued, across
 * every node; a failing job holds its key through its retries; a discarded one lets the next run
 * (CONTINUE) or blocks the key until an operator retries or deletes it (BLOCK); keys are
 * independent of each other. Order and overlap are judged from times the handlers record.
 */
class SequenceKeyTest extends EveryBackendTest {

    record Step(String account, int n) {
    }

    static final JobKind<Step> STEP = JobKind.of("ledger-step", Step.class);
    static final Duration WAIT = Duration.ofSeconds(60);

    /** One handler run: the job's account and number, and when it started and ended. */
    record Run(String account, int n, long startNanos, long endNanos) {
    }

    private final List<Run> runs = Collections.synchronizedList(new ArrayList<>());

    private void startNodes(JobHandler<Step> handler) {
        for (int i = 0; i < 3; i++) {
            client(builder().workerId("node-" + i).queue(new QueueOptions("default", 6, 4)).handler(STEP, handler)).start();
        }
    }

    private JobHandler<Step> recording(Duration work) {
        return job -> {
            long start = System.nanoTime();
            Thread.sleep(work.toMillis()); // the job's own work
            runs.add(new Run(job.args().account(), job.args().n(), start, System.nanoTime()));
            return Outcome.complete();
        };
    }

    private static EnqueueOptions sequence(String key) {
        return EnqueueOptions.defaults().withSequenceKey(key);
    }

    @Test
    void jobsOfOneKeyRunOneAtATimeInEnqueueOrderAndKeysRunSideBySide() {
        startNodes(recording(Duration.ofMillis(15)));
        Skipjack producer = client(builder().kind(STEP));
        List<String> accounts = List.of("a-1", "a-2", "a-3", "a-4");
        // Interleaved and with priorities against the order: the sequence is enqueue order alone.
        for (int n = 0; n < 15; n++) {
            List<JobRequest> batch = new ArrayList<>();
            for (String account : accounts) {
                batch.add(JobRequest.of(STEP, new Step(account, n), sequence(account).withPriority(15 - n)));
            }
            producer.enqueueAll(batch);
        }
        await("60 jobs completed", WAIT, () -> runs.size() == 60);

        Map<String, List<Run>> byAccount = new HashMap<>();
        for (Run r : runs) {
            byAccount.computeIfAbsent(r.account(), k -> new ArrayList<>()).add(r);
        }
        byAccount.forEach((account, list) -> {
            list.sort((a, b) -> Long.compare(a.startNanos(), b.startNanos()));
            for (int i = 0; i < list.size(); i++) {
                assertThat(list.get(i).n()).as("%s ran in enqueue order", account).isEqualTo(i);
                if (i > 0) {
                    assertThat(list.get(i).startNanos()).as("%s job %d started after %d ended", account, i, i - 1)
                            .isGreaterThanOrEqualTo(list.get(i - 1).endNanos());
                }
            }
        });
        assertThat(ConcurrencyLimitTest.maxOverlapByPartition(runs.stream()
                .map(r -> new ConcurrencyLimitTest.Run("all", r.startNanos(), r.endNanos())).toList()).get("all"))
                .as("different keys run at the same time").isGreaterThan(1);
    }

    @Test
    void aFailingJobHoldsItsKeyThroughItsRetries() {
        AtomicInteger attemptsOfFirst = new AtomicInteger();
        startNodes(job -> {
            if (job.args().n() == 0 && attemptsOfFirst.incrementAndGet() < 3) {
                return Outcome.retry(Duration.ofMillis(100), "not yet");
            }
            runs.add(new Run(job.args().account(), job.args().n(), System.nanoTime(), System.nanoTime()));
            return Outcome.complete();
        });
        Skipjack producer = client(builder().kind(STEP));
        long first = producer.enqueue(STEP, new Step("a", 0), sequence("a"));
        long second = producer.enqueue(STEP, new Step("a", 1), sequence("a"));
        awaitState(producer, second, JobState.COMPLETED, WAIT);
        assertThat(producer.find(first).orElseThrow().attempt()).isEqualTo(3);
        assertThat(runs).extracting(Run::n).as("the second ran only after the first completed").containsExactly(0, 1);
    }

    @Test
    void aDiscardedJobLetsTheNextRunUnderContinue() {
        startNodes(job -> job.args().n() == 0 ? Outcome.discard("bad row") : Outcome.complete());
        Skipjack producer = client(builder().kind(STEP));
        long first = producer.enqueue(STEP, new Step("a", 0), sequence("a"));
        long second = producer.enqueue(STEP, new Step("a", 1), sequence("a"));
        awaitState(producer, second, JobState.COMPLETED, WAIT);
        assertThat(producer.find(first).orElseThrow().state()).isEqualTo(JobState.DISCARDED);
    }

    @Test
    void aDiscardedJobBlocksItsKeyUnderBlockUntilAnOperatorRetriesIt() {
        AtomicInteger runsOfFirst = new AtomicInteger();
        // Only the first run of account a's first job discards: account b's job 0 completes.
        startNodes(job -> job.args().account().equals("a") && job.args().n() == 0 && runsOfFirst.incrementAndGet() == 1
                ? Outcome.discard("needs a fix") : Outcome.complete());
        Skipjack producer = client(builder().kind(STEP));
        EnqueueOptions blocking = EnqueueOptions.defaults().withSequenceKey("a", SequenceOnDiscard.BLOCK);
        long first = producer.enqueue(STEP, new Step("a", 0), blocking);
        long second = producer.enqueue(STEP, new Step("a", 1), blocking);
        long otherKey = producer.enqueue(STEP, new Step("b", 0), sequence("b"));
        awaitState(producer, first, JobState.DISCARDED, WAIT);
        awaitState(producer, otherKey, JobState.COMPLETED, WAIT);
        // Admission passes run every 50 ms; for half a second none may admit the blocked job.
        long until = System.nanoTime() + Duration.ofMillis(500).toNanos();
        while (System.nanoTime() < until) {
            assertThat(producer.find(second).orElseThrow().state()).isEqualTo(JobState.WAITING);
        }
        ConcurrencyKeyInfo key = producer.admin().concurrencyKeys().stream()
                .filter(k -> k.key().equals("seq:a")).findFirst().orElseThrow();
        assertThat(key.heldBy()).as("the operator sees what blocks the key").isEqualTo(first);

        assertThat(producer.admin().retry(first)).isTrue();
        awaitState(producer, second, JobState.COMPLETED, WAIT);
        assertThat(producer.find(first).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    /**
     * A job discarded behind the head of its BLOCK key and then retried waits its turn: retry sent
     * every discarded BLOCK job straight to available, as if it were the one blocking the key, so
     * it ran beside the running head and before the job enqueued ahead of it.
     */
    @Test
    void aRetriedJobDiscardedBehindTheHeadWaitsItsTurn() throws Exception {
        CountDownLatch headMayEnd = new CountDownLatch(1);
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        startNodes(job -> {
            if (job.args().n() == 0) {
                headMayEnd.await();
            }
            order.add(job.args().n());
            return Outcome.complete();
        });
        Skipjack producer = client(builder().kind(STEP));
        EnqueueOptions blocking = EnqueueOptions.defaults().withSequenceKey("a", SequenceOnDiscard.BLOCK);
        long head = producer.enqueue(STEP, new Step("a", 0), blocking);
        long next = producer.enqueue(STEP, new Step("a", 1), blocking);
        long later = producer.enqueue(STEP, new Step("a", 2), blocking);
        awaitState(producer, head, JobState.RUNNING, WAIT);

        assertThat(producer.admin().discard(later)).isTrue();
        assertThat(producer.admin().retry(later)).isTrue();
        JobRow.holdsFor("the retried job waits behind the running head", Duration.ofMillis(500),
                () -> producer.find(later).orElseThrow().state() == JobState.WAITING);
        headMayEnd.countDown();

        awaitState(producer, later, JobState.COMPLETED, WAIT);
        assertThat(producer.find(next).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        assertThat(order).as("in enqueue order, one at a time").containsExactly(0, 1, 2);
    }

    @Test
    void deletingTheDiscardedJobUnblocksItsKey() {
        startNodes(job -> job.args().n() == 0 ? Outcome.discard("needs a fix") : Outcome.complete());
        Skipjack producer = client(builder().kind(STEP));
        EnqueueOptions blocking = EnqueueOptions.defaults().withSequenceKey("a", SequenceOnDiscard.BLOCK);
        long first = producer.enqueue(STEP, new Step("a", 0), blocking);
        long second = producer.enqueue(STEP, new Step("a", 1), blocking);
        awaitState(producer, first, JobState.DISCARDED, WAIT);
        assertThat(producer.admin().delete(first)).isTrue();
        awaitState(producer, second, JobState.COMPLETED, WAIT);
    }

    @Test
    void aJobNotYetDueHoldsBackTheOnesEnqueuedAfterIt() {
        startNodes(recording(Duration.ZERO));
        Skipjack producer = client(builder().kind(STEP));
        long first = producer.enqueue(STEP, new Step("a", 0), sequence("a").withDelay(Duration.ofMillis(700)));
        long second = producer.enqueue(STEP, new Step("a", 1), sequence("a"));
        awaitState(producer, second, JobState.COMPLETED, WAIT);
        assertThat(producer.find(first).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        assertThat(runs).extracting(Run::n).containsExactly(0, 1);
    }

    @Test
    void cancellingTheHolderLetsTheNextRun() {
        Skipjack producer = client(builder().kind(STEP));
        long first = producer.enqueue(STEP, new Step("a", 0), sequence("a"));
        long second = producer.enqueue(STEP, new Step("a", 1), sequence("a"));
        assertThat(producer.find(second).orElseThrow().state()).isEqualTo(JobState.WAITING);
        assertThat(producer.admin().cancel(first)).isTrue();
        startNodes(recording(Duration.ZERO));
        awaitState(producer, second, JobState.COMPLETED, WAIT);
    }
}
