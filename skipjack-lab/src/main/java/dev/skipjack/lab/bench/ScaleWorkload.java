package dev.skipjack.lab.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.sql.DataSource;

/**
 * BENCHMARK.md's scale: the drain with worker concurrency 1, 8, 64 and 256 in one process, and with
 * several worker JVMs ({@link ScaleWorker}) of 64 each, against the same table. Every worker pool
 * names its connections (application_name), and a sampler counts them in pg_stat_activity every
 * 50 ms: lease-mode handlers hold no connection, so the peak should stay a handful however many
 * jobs run at once. Pools open connections only on demand (no minimum idle), so the count is what
 * the worker asked for, not what the pool was allowed.
 */
public final class ScaleWorkload {

    public static final List<Integer> CONCURRENCIES = List.of(1, 8, 64, 256);
    public static final int PROCESSES = 4;
    public static final int PROCESS_CONCURRENCY = 64;
    /** The bench's pool rule, applied to each worker pool: slots plus room for Skipjack's own connections. */
    static final int POOL_HEADROOM = 8;
    static final String APPLICATION_NAME = "skipjack-bench-worker";
    private static final long SAMPLE_EVERY_MILLIS = 50;

    /** One drain: its rate and the connections seen at peak. */
    record Point(double processPerSecond, long peakConnections, long peakBusy, long peakAllBackends) {
    }

    private final DataSource dataSource;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String schema;
    private final BenchTable table;

    /** {@code jobsTable} is {@link Skipjack#jobsTable()} of {@code schema}. */
    public ScaleWorkload(DataSource dataSource, String jdbcUrl, String user, String password, String schema,
                         String jobsTable) {
        this.dataSource = dataSource;
        this.table = new BenchTable(dataSource, jobsTable, dev.skipjack.Backend.POSTGRESQL); // PostgreSQL only: bench skips it elsewhere
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.schema = schema;
    }

    /**
     * A worker's pool: named for the sampler, sized like the bench's own (slots + headroom), opening
     * connections only when asked for one.
     */
    static HikariDataSource workerPool(String jdbcUrl, String user, String password, String schema, int concurrency) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("skipjack-bench-worker");
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(concurrency + POOL_HEADROOM);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        config.addDataSourceProperty("ApplicationName", applicationName(schema));
        return new HikariDataSource(config);
    }

    static String applicationName(String schema) {
        return APPLICATION_NAME + " " + schema;
    }

    /**
     * The medians per level (concurrency 1, 8, 64, 256, then the worker JVMs) in jobs/s, the raw
     * ceiling's (8 threads, so one figure per round whatever the level), and the pickup latency of an
     * idle worker at concurrency 8 and 256 in ms. {@code line} is the RESULT line.
     */
    public record Result(String line, List<String> levels, double[] drainPerSecond, double ceilingPerSecond,
                         IdleLatency.Percentiles pickupC8, IdleLatency.Percentiles pickupC256) {
    }

    /**
     * Runs the raw ceiling, every concurrency level and the worker JVMs, {@code runs} rounds; then the
     * pickup latency of one idle worker of concurrency 8 and of 256 ({@code latencySamples} jobs each).
     */
    public Result run(int jobs, int runs, int latencySamples, PrintWriter out) throws Exception {
        RawCeiling ceiling = new RawCeiling(table);
        ceiling.run(RawCeiling.warmUpJobs(jobs), SkipjackDrain.QUEUE, SkipjackDrain.KIND);
        try (HikariDataSource warm = workerPool(jdbcUrl, user, password, schema, 8)) {
            // Unreported, so class loading and JIT land on no level in particular.
            new SkipjackDrain(dataSource, warm, schema, false).run(Math.max(1_000, jobs / 10), 8);
        }
        int levels = CONCURRENCIES.size() + 1;
        double[][] rates = new double[levels][runs];
        double[] ceilingRates = new double[runs];
        long[] peak = new long[levels];
        long[] peakBusy = new long[levels];
        long[] peakAll = new long[levels];
        for (int r = 0; r < runs; r++) {
            ceiling.run(RawCeiling.roundWarmUpJobs(jobs), SkipjackDrain.QUEUE, SkipjackDrain.KIND);
            ceilingRates[r] = ceiling.run(jobs, SkipjackDrain.QUEUE, SkipjackDrain.KIND).processPerSecond();
            out.printf(Locale.ROOT, "scale round %d/%d, raw ceiling (%d threads): process %,.0f/s%n", r + 1, runs,
                    RawCeiling.THREADS, ceilingRates[r]);
            for (int l = 0; l < levels; l++) {
                boolean processes = l == CONCURRENCIES.size();
                Point p = processes ? drainInProcesses(jobs) : drainInProcess(jobs, CONCURRENCIES.get(l));
                rates[l][r] = p.processPerSecond();
                peak[l] = Math.max(peak[l], p.peakConnections());
                peakBusy[l] = Math.max(peakBusy[l], p.peakBusy());
                peakAll[l] = Math.max(peakAll[l], p.peakAllBackends());
                out.printf(Locale.ROOT, "scale round %d/%d, %s: process %,.0f/s; worker connections at peak %d"
                                + " (%d busy), all backends of the database %d%n", r + 1, runs, label(l),
                        p.processPerSecond(), p.peakConnections(), p.peakBusy(), p.peakAllBackends());
                out.flush();
            }
        }
        IdleLatency latency = new IdleLatency(dataSource, schema);
        IdleLatency.Percentiles pickup8 = latency.run(latencySamples, IdleLatency.GAP, true, 8);
        IdleLatency.Percentiles pickup256 = latency.run(latencySamples, IdleLatency.GAP, true, 256);
        out.printf(Locale.ROOT, "scale: pickup of %d jobs one at a time, concurrency 8 p50 %.2f ms p99 %.2f ms,"
                + " concurrency 256 p50 %.2f ms p99 %.2f ms%n", latencySamples, pickup8.p50(), pickup8.p99(),
                pickup256.p50(), pickup256.p99());
        StringBuilder result = new StringBuilder(String.format(Locale.ROOT, "RESULT workload=scale jobs=%d runs=%d", jobs, runs));
        double[] medians = new double[levels];
        List<String> keys = new ArrayList<>();
        for (int l = 0; l < levels; l++) {
            medians[l] = Median.of(rates[l]);
            keys.add(key(l));
            result.append(String.format(Locale.ROOT, " %s_per_s=%.0f", key(l), medians[l]));
        }
        for (int l = 0; l < levels; l++) {
            result.append(String.format(Locale.ROOT, " peak_connections_%s=%d", key(l), peak[l]));
        }
        double ceilingMedian = Median.of(ceilingRates);
        double ratio = medians[CONCURRENCIES.indexOf(256)] / medians[CONCURRENCIES.indexOf(8)];
        double pickupRatio = pickup256.p50() / pickup8.p50();
        boolean drainFlat = FlatVerdict.throughputFlat(ratio);
        boolean pickupFlat = FlatVerdict.latencyFlat(pickupRatio);
        result.append(String.format(Locale.ROOT, " ceiling_per_s=%.0f ratio_c256_to_c8=%.2f c8_pickup_p50_ms=%.2f"
                        + " c8_pickup_p99_ms=%.2f c256_pickup_p50_ms=%.2f c256_pickup_p99_ms=%.2f"
                        + " pickup_p50_ratio_c256_to_c8=%.2f drain_flat=%s pickup_flat=%s flat=%s", ceilingMedian, ratio,
                pickup8.p50(), pickup8.p99(), pickup256.p50(), pickup256.p99(), pickupRatio,
                FlatVerdict.yesNo(drainFlat), FlatVerdict.yesNo(pickupFlat), FlatVerdict.yesNo(drainFlat && pickupFlat)));
        return new Result(result.toString(), keys, medians, ceilingMedian, pickup8, pickup256);
    }

    private static String key(int level) {
        return level == CONCURRENCIES.size() ? "p" + PROCESSES + "x" + PROCESS_CONCURRENCY : "c" + CONCURRENCIES.get(level);
    }

    private static String label(int level) {
        return level == CONCURRENCIES.size()
                ? PROCESSES + " worker JVMs x concurrency " + PROCESS_CONCURRENCY
                : "one process, concurrency " + CONCURRENCIES.get(level);
    }

    private Point drainInProcess(int jobs, int concurrency) throws Exception {
        try (HikariDataSource pool = workerPool(jdbcUrl, user, password, schema, concurrency);
             ConnectionSampler sampler = new ConnectionSampler()) {
            double rate = new SkipjackDrain(dataSource, pool, schema, false).run(jobs, concurrency).processPerSecond();
            return sampler.finish(rate);
        }
    }

    /**
     * The drain by {@link #PROCESSES} worker JVMs: jobs enqueued first, JVMs started and ready, then
     * timed from the START line until every job ran (their reported counts) and is terminal in the table.
     */
    private Point drainInProcesses(int jobs) throws Exception {
        Path logDir = Files.createTempDirectory("skipjack-bench-scale-");
        List<Process> workers = new ArrayList<>();
        List<Writer> inputs = new ArrayList<>();
        AtomicLongArray handled = new AtomicLongArray(PROCESSES);
        try {
            for (int i = 0; i < PROCESSES; i++) {
                workers.add(startWorker(i, logDir));
            }
            for (int i = 0; i < PROCESSES; i++) {
                Process p = workers.get(i);
                inputs.add(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8));
                readCounts(p, i, handled, logDir); // READY: warmed up, its warm-up jobs done
            }
            return drainWithWorkers(jobs, workers, inputs, handled, logDir);
        } finally {
            for (Process p : workers) {
                p.destroyForcibly();
            }
        }
    }

    private Point drainWithWorkers(int jobs, List<Process> workers, List<Writer> inputs, AtomicLongArray handled,
                                   Path logDir) throws Exception {
        table.empty();
        Skipjack producer = Skipjack.builder(dataSource).schema(schema).kind(JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class)).build();
        List<JobRequest> requests = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of(SkipjackDrain.KIND, new SkipjackDrain.Args(i)));
        }
        producer.enqueueAll(requests);
        try (ConnectionSampler sampler = new ConnectionSampler()) {
            long start = System.nanoTime();
            for (Writer in : inputs) {
                in.write("START\n");
                in.flush();
            }
            long deadline = start + TimeUnit.MINUTES.toNanos(10);
            while (sum(handled) < jobs && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            table.awaitDrained(Math.max(0, deadline - System.nanoTime()));
            double rate = jobs / ((System.nanoTime() - start) / 1e9);
            Point point = sampler.finish(rate);
            for (Writer in : inputs) {
                in.write("STOP\n");
                in.flush();
            }
            for (Process p : workers) {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a scale worker JVM did not stop; logs: " + logDir);
                }
            }
            if (sum(handled) < jobs) {
                throw new IllegalStateException("worker JVMs ran " + sum(handled) + " of " + jobs + " jobs");
            }
            return point;
        }
    }

    private Process startWorker(int index, Path logDir) throws IOException {
        ProcessBuilder pb = new WorkerJvm(jdbcUrl, user, schema, PROCESS_CONCURRENCY)
                .command(ScaleWorker.class, List.of("-Xmx256m"), password, Integer.toString(index));
        pb.redirectError(logDir.resolve("worker-" + index + ".err").toFile());
        return pb.start();
    }

    /** Waits for the worker's READY, then keeps its highest reported count in {@code handled[index]}. */
    private static void readCounts(Process p, int index, AtomicLongArray handled, Path logDir) throws IOException {
        BufferedReader stdout = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = stdout.readLine();
        if (!"READY".equals(line)) {
            throw new IllegalStateException("scale worker JVM " + index + " did not start; see " + logDir);
        }
        Thread reader = new Thread(() -> {
            try {
                for (String l; (l = stdout.readLine()) != null; ) {
                    if (l.startsWith("HANDLED ")) {
                        long n = Long.parseLong(l.substring("HANDLED ".length()));
                        handled.accumulateAndGet(index, n, Math::max); // lines from two threads may cross
                    }
                }
            } catch (IOException | NumberFormatException ended) {
                // the worker ended
            }
        }, "scale-worker-" + index + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    private static long sum(AtomicLongArray values) {
        long total = 0;
        for (int i = 0; i < values.length(); i++) {
            total += values.get(i);
        }
        return total;
    }

    /**
     * Counts the workers' connections in pg_stat_activity every 50 ms on a connection of its own
     * (left out of the counts), from construction until {@link #finish}.
     */
    private final class ConnectionSampler implements AutoCloseable {

        private final AtomicLong peak = new AtomicLong();
        private final AtomicLong peakBusy = new AtomicLong();
        private final AtomicLong peakAll = new AtomicLong();
        private final Connection connection;
        private final Thread thread;
        private volatile boolean running = true;
        private volatile SQLException failure;

        ConnectionSampler() throws SQLException {
            connection = dataSource.getConnection();
            PreparedStatement ps = connection.prepareStatement(table.sql("scale_connections"));
            String name = applicationName(schema);
            ps.setString(1, name);
            ps.setString(2, name);
            thread = new Thread(() -> sample(ps), "scale-connection-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        private void sample(PreparedStatement ps) {
            try {
                while (running) {
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        peak.accumulateAndGet(rs.getLong(1), Math::max);
                        peakBusy.accumulateAndGet(rs.getLong(2), Math::max);
                        peakAll.accumulateAndGet(rs.getLong(3), Math::max);
                    }
                    Thread.sleep(SAMPLE_EVERY_MILLIS);
                }
            } catch (SQLException e) {
                failure = e;
            } catch (InterruptedException stopped) {
                // closing
            }
        }

        Point finish(double rate) throws SQLException, InterruptedException {
            running = false;
            thread.join(5_000);
            if (failure != null) {
                throw failure;
            }
            return new Point(rate, peak.get(), peakBusy.get(), peakAll.get());
        }

        @Override
        public void close() throws Exception {
            running = false;
            thread.join(5_000);
            connection.close();
        }
    }
}
