package dev.skipjack.lab.bench;

import dev.skipjack.JobKind;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * BENCHMARK.md's latency: one idle worker; another client enqueues one job at a time, each in its
 * own committed transaction, 20 ms apart; latency is handler start minus the moment enqueue
 * returned (its commit acknowledged). The producer is a separate client, so nothing in-process
 * shortcuts the wake-up: the worker learns of the job by NOTIFY, or by polling when that is off.
 */
public final class IdleLatency {

    /** Percentiles in milliseconds. */
    public record Percentiles(double p50, double p99, double max) {
    }

    /** BENCHMARK.md's gap between two jobs: long enough for the worker to fall idle again. */
    public static final Duration GAP = Duration.ofMillis(20);
    /** The worker's concurrency unless a run names another (the drain's). */
    static final int CONCURRENCY = 8;

    private final DataSource dataSource;
    private final String schema;
    private final boolean onlyOwnKind;

    public IdleLatency(DataSource dataSource, String schema) {
        this(dataSource, schema, false);
    }

    /**
     * With {@code onlyOwnKind}, deletes only its own kind's rows before the run, leaving other rows
     * ({@code depth}'s filler) in place, so pickup is measured on the full table.
     */
    public IdleLatency(DataSource dataSource, String schema, boolean onlyOwnKind) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.onlyOwnKind = onlyOwnKind;
    }

    public Percentiles run(int samples, Duration gap, boolean listenNotify) throws Exception {
        return run(samples, gap, listenNotify, CONCURRENCY);
    }

    /** As {@link #run(int, Duration, boolean)}, the idle worker's queue of {@code concurrency} slots. */
    public Percentiles run(int samples, Duration gap, boolean listenNotify, int concurrency) throws Exception {
        BlockingQueue<Long> started = new LinkedBlockingQueue<>();
        Skipjack worker = Skipjack.builder(dataSource).schema(schema).listenNotify(listenNotify)
                .queue(SkipjackDrain.QUEUE, concurrency)
                .handler(JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class), job -> {
                    started.add(System.nanoTime());
                    return Outcome.complete();
                })
                .build();
        Skipjack producer = Skipjack.builder(dataSource).schema(schema).listenNotify(listenNotify)
                .kind(JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class)).build();
        BenchTable table = new BenchTable(dataSource, worker);
        (onlyOwnKind ? table.onlyKind(SkipjackDrain.KIND) : table).empty();
        worker.start();
        try {
            // Let the worker settle into idling (first poll done, listener connected).
            producer.enqueue(SkipjackDrain.KIND, new SkipjackDrain.Args(-1));
            if (started.poll(10, TimeUnit.SECONDS) == null) {
                throw new IllegalStateException("the worker did not start the warm-up job");
            }
            Thread.sleep(gap.toMillis());
            double[] millis = new double[samples];
            for (int i = 0; i < samples; i++) {
                producer.enqueue(SkipjackDrain.KIND, new SkipjackDrain.Args(i));
                long committed = System.nanoTime();
                Long at = started.poll(30, TimeUnit.SECONDS);
                if (at == null) {
                    throw new IllegalStateException("job " + i + " did not start within 30 s");
                }
                // The handler may start before the commit acknowledgement reaches this thread.
                millis[i] = Math.max(0, at - committed) / 1e6;
                Thread.sleep(gap.toMillis());
            }
            Arrays.sort(millis);
            return new Percentiles(percentile(millis, 0.50), percentile(millis, 0.99), millis[millis.length - 1]);
        } finally {
            worker.stop(Duration.ofSeconds(10));
        }
    }

    /** Nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
