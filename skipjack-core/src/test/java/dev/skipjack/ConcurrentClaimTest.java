package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No duplicates, no loss, in one JVM on every backend: several clients claim from one queue while
 * producers keep enqueueing (single and batch inserts), so claims, completions and inserts
 * contend on the same index. Every job must run exactly once and end completed. (The
 * multi-process version, with killed workers and the audit, is skipjack-audit's.)
 */
class ConcurrentClaimTest extends EveryBackendTest {

    record Work(int n) {
    }

    private static final JobKind<Work> WORK = JobKind.of("work", Work.class);
    private static final int CLIENTS = 4;
    private static final int PRODUCERS = 3;
    private static final int BATCHES_PER_PRODUCER = 20;
    private static final int BATCH = 50;

    @Test
    void everyJobRunsExactlyOnceWhileClientsClaimAndProducersEnqueue() throws Exception {
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<Skipjack> workers = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            workers.add(client(builder().workerId("worker-" + i).queue(QueueOptions.of("default", 8))
                    .handler(WORK, job -> {
                        runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
                        return Outcome.complete();
                    })));
        }
        workers.forEach(Skipjack::start);

        Skipjack producer = client(builder());
        ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
        List<Future<List<Long>>> produced = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int producerNo = p;
            produced.add(producers.submit(() -> {
                List<Long> ids = new ArrayList<>();
                for (int b = 0; b < BATCHES_PER_PRODUCER; b++) {
                    List<JobRequest> batch = new ArrayList<>();
                    for (int j = 0; j < BATCH; j++) {
                        batch.add(JobRequest.of(WORK, new Work(producerNo * 100_000 + b * BATCH + j)));
                    }
                    ids.addAll(producer.enqueueAll(batch));
                    ids.add(producer.enqueue(WORK, new Work(-1)));
                }
                return ids;
            }));
        }
        List<Long> ids = new ArrayList<>();
        for (Future<List<Long>> f : produced) {
            ids.addAll(f.get());
        }
        producers.shutdown();
        int total = PRODUCERS * BATCHES_PER_PRODUCER * (BATCH + 1);
        assertThat(ids).doesNotHaveDuplicates().hasSize(total);

        await("every job completed", Duration.ofSeconds(90),
                () -> producer.countByState().get(JobState.COMPLETED) == total);
        assertThat(runs.keySet()).as("no loss: every enqueued job ran").containsExactlyInAnyOrderElementsOf(ids);
        assertThat(runs.values()).as("no duplicates: none ran twice").allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(queryLong("SELECT count(DISTINCT claimed_by) FROM " + jobsTable()))
                .as("the work was shared between the clients").isGreaterThan(1);
    }
}
