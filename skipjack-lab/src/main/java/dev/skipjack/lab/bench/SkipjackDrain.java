package dev.skipjack.lab.bench;

import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * BENCHMARK.md's drain: bulk-enqueue N tiny jobs into an empty queue with {@code enqueueAll}, then
 * start a worker with the default configuration and a handler that only counts, and time until
 * every job is terminal in the database.
 */
public final class SkipjackDrain {

    public static final String QUEUE = "default";
    public static final String KIND = "bench-noop";

    /** The payload of one job: {@code {"n": i}}. */
    public record Args(int n) {
    }

    private final DataSource dataSource;
    private final DataSource workerDataSource;
    private final String schema;
    private final boolean onlyOwnKind;

    public SkipjackDrain(DataSource dataSource, String schema) {
        this(dataSource, dataSource, schema, false);
    }

    /**
     * A drain whose worker runs on its own pool ({@code scale} counts that pool's connections, so
     * the bench's enqueue and polling must not use it), and which, with {@code onlyOwnKind}, deletes
     * and waits for only its own kind's rows, leaving other rows ({@code depth}'s filler) in place.
     */
    public SkipjackDrain(DataSource dataSource, DataSource workerDataSource, String schema, boolean onlyOwnKind) {
        this.dataSource = dataSource;
        this.workerDataSource = workerDataSource;
        this.schema = schema;
        this.onlyOwnKind = onlyOwnKind;
    }

    /** A client on the bench schema with default settings, running {@code concurrency} no-op jobs at once. */
    public Skipjack client(int concurrency, LongAdder handled) {
        return Skipjack.builder(workerDataSource)
                .schema(schema)
                .queue(QUEUE, concurrency)
                .handler(JobKind.of(KIND, Args.class), job -> {
                    handled.increment();
                    return Outcome.complete();
                })
                .build();
    }

    public RawCeiling.Rates run(int jobs, int concurrency) throws Exception {
        return run(jobs, handled -> client(concurrency, handled));
    }

    /**
     * The same drain with a worker of the caller's making ({@code modes}: another execution mode's
     * handler for the same kind); {@code client} gets the counter its handler must increment once
     * per job.
     */
    public RawCeiling.Rates run(int jobs, Function<LongAdder, Skipjack> client) throws Exception {
        LongAdder handled = new LongAdder();
        Skipjack skipjack = client.apply(handled);
        Skipjack producer = workerDataSource == dataSource ? skipjack : producer(dataSource, schema);
        BenchTable table = new BenchTable(dataSource, skipjack);
        if (onlyOwnKind) {
            table = table.onlyKind(KIND);
        }
        table.empty();
        double enqueuePerSecond = enqueue(producer, jobs);
        return new RawCeiling.Rates(enqueuePerSecond, drain(skipjack, handled, table, jobs));
    }

    /** A client that only enqueues the drain's jobs: no queues, no handlers, never started. */
    static Skipjack producer(DataSource dataSource, String schema) {
        return Skipjack.builder(dataSource).schema(schema).kind(JobKind.of(KIND, Args.class)).build();
    }

    /** Enqueues {@code jobs} jobs {@code {"n": i}} with one {@code enqueueAll}; returns jobs per second. */
    static double enqueue(Skipjack producer, int jobs) {
        List<JobRequest> requests = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of(KIND, new Args(i)));
        }
        PhaseWindow.open();
        long enqueueStart = System.nanoTime();
        producer.enqueueAll(requests);
        double seconds = (System.nanoTime() - enqueueStart) / 1e9;
        PhaseWindow.close();
        return jobs / seconds;
    }

    /**
     * Starts {@code worker} on a table holding {@code jobs} available jobs and times it until every
     * one is terminal in the database; stops it; returns jobs per second.
     */
    static double drain(Skipjack worker, LongAdder handled, BenchTable table, int jobs) throws Exception {
        PhaseWindow.open();
        long start = System.nanoTime();
        double seconds;
        worker.start();
        try {
            // Count in process first: polling the table meanwhile would take CPU from the workers.
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (handled.sum() < jobs && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            table.awaitDrained(Math.max(0, deadline - System.nanoTime()));
            seconds = (System.nanoTime() - start) / 1e9;
            PhaseWindow.close();
        } finally {
            worker.stop(Duration.ofSeconds(10));
        }
        if (handled.sum() < jobs) {
            throw new IllegalStateException("handler ran " + handled.sum() + " of " + jobs + " jobs");
        }
        return jobs / seconds;
    }
}
