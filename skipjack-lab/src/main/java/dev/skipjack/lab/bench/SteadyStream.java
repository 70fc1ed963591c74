package dev.skipjack.lab.bench;

import dev.skipjack.JobKind;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * BENCHMARK.md's stream: a producer client enqueues at a fixed offered rate ({@link OfferedLoad})
 * while a worker client with the default configuration runs the jobs; a step is sustained when the
 * producer kept the rate and the queue depth did not grow over the second half of the step.
 * Latency is handler start minus the commit acknowledgement of the job's enqueue batch, as in
 * {@link IdleLatency}; producer and worker are separate clients, so the worker learns of new jobs
 * the way a worker on another node would.
 */
public final class SteadyStream {

    public static final String KIND = "bench-stream";
    /** Depth samples per second. */
    static final long SAMPLE_MILLIS = 500;
    /** A producer reaching less than this share of the offered rate did not offer it. */
    static final double PRODUCER_KEPT = 0.95;
    /** Latencies are kept for at most this many jobs per step (16 bytes each). */
    static final int MAX_LATENCY_SAMPLES = 4_000_000;
    /** Longest wait after a step for its jobs to finish. */
    static final Duration DRAIN_LIMIT = Duration.ofSeconds(60);
    /** The unreported warm-up before the first step (class loading, JIT), at most this long. */
    static final Duration WARM_UP = Duration.ofSeconds(5);

    /** What one step measured. */
    public record Step(int offeredPerSecond, double enqueuedPerSecond, long depthSecondQuarter, long depthLastQuarter,
                       long depthMax, double p50Ms, double p99Ms, boolean producerKept, boolean depthBounded) {

        public boolean sustained() {
            return producerKept && depthBounded;
        }

        /** Why the step was not sustained, or "ok". */
        public String verdict() {
            return !producerKept ? "producer_behind" : !depthBounded ? "depth_grew" : "ok";
        }
    }

    private final DataSource dataSource;
    private final String schema;
    private int runs;

    public SteadyStream(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
    }

    /** An unreported step at {@code ratePerSecond}, so that the first reported step does not pay for JIT. */
    public void warmUp(int ratePerSecond, Duration stepLength, int concurrency) throws Exception {
        runStep(ratePerSecond, stepLength.compareTo(WARM_UP) < 0 ? stepLength : WARM_UP, concurrency);
    }

    /** One step at {@code ratePerSecond} for {@code length}, on an emptied table. */
    public Step runStep(int ratePerSecond, Duration length, int concurrency) throws Exception {
        int run = ++runs;
        int capacity = (int) Math.min(MAX_LATENCY_SAMPLES, (long) ratePerSecond * length.toSeconds() * 11 / 10 + 1_000);
        long[] committedAt = new long[capacity];
        AtomicLongArray startedAt = new AtomicLongArray(capacity);
        LongAdder handled = new LongAdder();
        Skipjack worker = Skipjack.builder(dataSource).schema(schema)
                .queue(SkipjackDrain.QUEUE, concurrency)
                .handler(JobKind.of(KIND, OfferedLoad.Args.class), job -> {
                    OfferedLoad.Args a = job.args();
                    if (a.run() == run && a.n() < capacity) {
                        startedAt.set(a.n(), System.nanoTime());
                    }
                    handled.increment();
                    return Outcome.complete();
                })
                .build();
        Skipjack producer = Skipjack.builder(dataSource).schema(schema).kind(JobKind.of(KIND, OfferedLoad.Args.class)).build();
        BenchTable table = new BenchTable(dataSource, worker);
        table.empty();
        worker.start();
        OfferedLoad load = new OfferedLoad(producer, KIND, run, ratePerSecond, committedAt);
        List<long[]> depth = new ArrayList<>();
        try {
            long start = System.nanoTime();
            long end = start + length.toNanos();
            load.start();
            long nextSample = start;
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                String countBacklog = table.sql("count_backlog");
                while (System.nanoTime() < end) {
                    nextSample += TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS);
                    long wait = Math.min(nextSample, end) - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    depth.add(new long[] {System.nanoTime() - start, count(s, countBacklog)});
                }
                load.stop();
                // Let the step's last jobs run and be acknowledged, so their latency counts too and
                // the worker stops with nothing in flight (bounded: an unsustained step's backlog
                // may take longer, and is then left to the next step's TRUNCATE).
                long drainDeadline = System.nanoTime() + DRAIN_LIMIT.toNanos();
                // In-process count first, the table after: counting a large backlog every few
                // milliseconds would take CPU from the worker it waits for.
                while (System.nanoTime() < drainDeadline && handled.sum() < load.sent()) {
                    Thread.sleep(5);
                }
                while (System.nanoTime() < drainDeadline && count(s, countBacklog) > 0) {
                    Thread.sleep(200);
                }
            }
        } finally {
            load.stop();
            worker.stop(Duration.ofSeconds(10));
        }
        return measure(ratePerSecond, length, load, committedAt, startedAt, depth);
    }

    private static Step measure(int rate, Duration length, OfferedLoad load, long[] committedAt,
                                AtomicLongArray startedAt, List<long[]> depth) {
        long lengthNanos = length.toNanos();
        long secondQuarter = meanDepth(depth, lengthNanos / 4, lengthNanos / 2);
        long lastQuarter = meanDepth(depth, lengthNanos * 3 / 4, lengthNanos + 1);
        long max = depth.stream().mapToLong(d -> d[1]).max().orElse(0);
        // Bounded: the depth grew by less than one second of offered jobs (at least 100) from the
        // second quarter of the step to the last. A worker short of the rate by 5% for a 60 s step
        // grows it by 1.5 s of jobs between the two quarters' midpoints.
        boolean bounded = lastQuarter - secondQuarter < Math.max(100, rate);
        double enqueued = load.achievedPerSecond();
        boolean kept = enqueued >= PRODUCER_KEPT * rate;

        int n = (int) Math.min(load.sent(), committedAt.length);
        double[] millis = new double[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            long started = startedAt.get(i);
            if (started != 0 && committedAt[i] != 0) {
                // The handler may start before the commit acknowledgement reaches the producer.
                millis[k++] = Math.max(0, started - committedAt[i]) / 1e6;
            }
        }
        double[] sorted = Arrays.copyOf(millis, k);
        Arrays.sort(sorted);
        double p50 = k == 0 ? Double.NaN : IdleLatency.percentile(sorted, 0.50);
        double p99 = k == 0 ? Double.NaN : IdleLatency.percentile(sorted, 0.99);
        return new Step(rate, enqueued, secondQuarter, lastQuarter, max, p50, p99, kept, bounded);
    }

    private static long meanDepth(List<long[]> depth, long fromNanos, long toNanos) {
        return Math.round(depth.stream().filter(d -> d[0] >= fromNanos && d[0] < toNanos)
                .mapToLong(d -> d[1]).average().orElse(0));
    }

    static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
