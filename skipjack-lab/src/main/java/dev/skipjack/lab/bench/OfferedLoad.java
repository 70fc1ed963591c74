package dev.skipjack.lab.bench;

import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The producer of stream and soak: enqueues jobs at a fixed offered rate from one thread, every
 * {@link #TICK_MILLIS} ms the jobs that fell due since the last batch, each batch with
 * {@code enqueueAll} in its own committed transaction. A producer that falls behind (enqueue slower
 * than the rate) catches up in batches of at most four ticks' worth, so its achieved rate shows it.
 * Job {@code n} of the run gets args {@code {"run": r, "n": n}}; the moment its batch's commit was
 * acknowledged is kept in {@code committedAt[n]} (for the first {@code committedAt.length} jobs).
 */
final class OfferedLoad {

    static final long TICK_MILLIS = 5;

    /** The payload of a stream job: which run (step) it belongs to and its number in that run. */
    public record Args(int run, int n) {
    }

    private final Skipjack producer;
    private final String kind;
    private final int run;
    private final int ratePerSecond;
    private final long[] committedAt;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stopped;
    private volatile long sent;
    private volatile long startedNanos;
    private volatile long stoppedNanos;

    /** @param committedAt where commit acknowledgement times go, or an empty array to keep none */
    OfferedLoad(Skipjack producer, String kind, int run, int ratePerSecond, long[] committedAt) {
        this.producer = producer;
        this.kind = kind;
        this.run = run;
        this.ratePerSecond = ratePerSecond;
        this.committedAt = committedAt;
        this.thread = new Thread(this::produce, "bench-producer");
        thread.setDaemon(true);
    }

    void start() {
        startedNanos = System.nanoTime();
        thread.start();
    }

    /** Stops producing and waits for the batch in flight; a second call does nothing. */
    void stop() throws InterruptedException {
        if (stoppedNanos != 0) {
            return;
        }
        stopped = true;
        thread.join(TimeUnit.SECONDS.toMillis(30));
        stoppedNanos = System.nanoTime();
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("the producer failed: " + t, t);
        }
    }

    long sent() {
        return sent;
    }

    /** Jobs per second actually enqueued between start and stop. */
    double achievedPerSecond() {
        return sent / ((stoppedNanos - startedNanos) / 1e9);
    }

    private void produce() {
        long perTick = Math.max(1, ratePerSecond * TICK_MILLIS / 1000);
        long maxBatch = Math.max(20, 4 * perTick);
        long tickNanos = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
        long n = 0;
        long lastBatchNanos = startedNanos;
        try {
            while (!stopped) {
                long now = System.nanoTime();
                long due = (long) ((now - startedNanos) / 1e9 * ratePerSecond);
                long pending = due - n;
                long sinceLast = now - lastBatchNanos;
                if (pending < perTick && sinceLast < tickNanos || pending <= 0) {
                    // Wait for a tick's worth of jobs, or the tick to end: batches, not single rows.
                    LockSupport.parkNanos(Math.max(100_000, tickNanos - sinceLast));
                    if (pending <= 0 && sinceLast >= tickNanos) {
                        lastBatchNanos = now;
                    }
                    continue;
                }
                lastBatchNanos = now;
                int batch = (int) Math.min(pending, maxBatch);
                List<JobRequest> requests = new ArrayList<>(batch);
                for (int i = 0; i < batch; i++) {
                    requests.add(JobRequest.of(kind, new Args(run, (int) (n + i))));
                }
                producer.enqueueAll(requests);
                long ack = System.nanoTime();
                for (long i = n; i < n + batch && i < committedAt.length; i++) {
                    committedAt[(int) i] = ack;
                }
                n += batch;
                sent = n;
            }
        } catch (Throwable t) {
            failure.set(t);
        }
    }
}
