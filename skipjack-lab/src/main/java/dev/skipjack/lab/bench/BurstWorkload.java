package dev.skipjack.lab.bench;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.dashboard.SkipjackDashboard;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Overload (issue 14, item 5): one producer enqueues a burst of N jobs as fast as {@code
 * enqueueAll} goes, in chunks, while one worker of the given concurrency drains them. Measured
 * before the burst (idle) and until the queue is empty again:
 * <ul>
 *   <li>the jobs the worker holds claimed ({@code running} rows): bounded by its slots, however
 *       deep the table, since it claims only for free slots;</li>
 *   <li>this JVM's live heap (used after a full collection, sampled every 2 s), which holds the
 *       worker, the producer's current chunk and the dashboard;</li>
 *   <li>probe pickup: once a second another client enqueues one job of priority 0 (the burst's
 *       jobs are priority 1), and the time from its commit to its handler start is the claim's
 *       latency with the backlog in the table, not the backlog's length;</li>
 *   <li>the dashboard: {@code /api/overview} and the first page of available jobs, timed.</li>
 * </ul>
 */
public final class BurstWorkload {

    /** The figures of one burst. Times in milliseconds, heap in MiB. */
    public record Result(long jobs, double enqueuePerSecond, double drainSeconds, long heldMax, double heapIdleMb,
                         double heapMaxMb, double probeIdleP50, double probeBurstP50, double probeBurstP99,
                         double dashboardIdleP50, double dashboardBurstP50, double dashboardBurstP99, double dashboardBurstMax) {
    }

    private static final int CHUNK = 10_000;
    private static final EnqueueOptions BURST = EnqueueOptions.defaults().withPriority(1);
    private static final EnqueueOptions PROBE = EnqueueOptions.defaults().withPriority(0);
    private static final int IDLE_SAMPLES = 10;

    private final DataSource dataSource;
    private final String schema;
    private final HttpClient http = HttpClient.newHttpClient();
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private String jobsTable;

    public BurstWorkload(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
    }

    /**
     * Runs the burst; every 10 s a line on {@code progress} gives the backlog, the jobs held and the
     * last probe and dashboard times, so flatness over the run can be read, not only percentiles.
     */
    public Result run(long jobs, int concurrency, PrintWriter progress) throws Exception {
        Map<Integer, Long> probeStarted = new ConcurrentHashMap<>();
        AtomicLong completed = new AtomicLong();
        JobKind<SkipjackDrain.Args> kind = JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class);
        Skipjack worker = Skipjack.builder(dataSource).schema(schema).queue(SkipjackDrain.QUEUE, concurrency)
                .handler(kind, job -> {
                    if (job.args().n() < 0) {
                        probeStarted.put(job.args().n(), System.nanoTime());
                    }
                    completed.incrementAndGet();
                    return Outcome.complete();
                }).build();
        Skipjack producer = Skipjack.builder(dataSource).schema(schema).kind(kind).build();
        Skipjack prober = Skipjack.builder(dataSource).schema(schema).kind(kind).build();
        new BenchTable(dataSource, worker).empty();
        jobsTable = worker.jobsTable();
        worker.start();
        try (SkipjackDashboard dashboard = SkipjackDashboard.builder(worker.admin()).port(0).build().start()) {
            Probes probes = new Probes(prober, probeStarted);
            double[] probeIdle = new double[IDLE_SAMPLES];
            double[] dashboardIdle = new double[IDLE_SAMPLES];
            for (int i = 0; i < IDLE_SAMPLES; i++) {
                probeIdle[i] = probes.one(Duration.ofSeconds(30));
                dashboardIdle[i] = dashboardMillis(dashboard);
            }
            double heapIdle = liveHeapMb();

            long burstStart = System.nanoTime();
            AtomicLong enqueueNanos = new AtomicLong();
            Thread enqueuer = new Thread(() -> {
                List<JobRequest> chunk = new ArrayList<>(CHUNK);
                for (long n = 0; n < jobs; n++) {
                    chunk.add(JobRequest.of(SkipjackDrain.KIND, new SkipjackDrain.Args((int) n), BURST));
                    if (chunk.size() == CHUNK || n == jobs - 1) {
                        producer.enqueueAll(chunk);
                        chunk = new ArrayList<>(CHUNK);
                    }
                }
                enqueueNanos.set(System.nanoTime() - burstStart);
            }, "burst-enqueuer");
            enqueuer.setUncaughtExceptionHandler((t, e) -> e.printStackTrace());
            enqueuer.start();

            List<Double> probeBurst = new ArrayList<>();
            List<Double> dashboardBurst = new ArrayList<>();
            long heldMax = 0;
            double heapMax = heapIdle;
            long nextHeap = System.nanoTime();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            long nextLine = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (enqueuer.isAlive() || unfinished() > 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the burst did not drain within 30 minutes");
                }
                long held = running();
                heldMax = Math.max(heldMax, held);
                double probe = probes.one(Duration.ofMinutes(2));
                double page = dashboardMillis(dashboard);
                probeBurst.add(probe);
                dashboardBurst.add(page);
                if (System.nanoTime() >= nextLine) {
                    progress.printf(Locale.ROOT, "  t=%3.0f s: %,d completed, %,d held, probe %.1f ms, dashboard %.0f ms%n",
                            (System.nanoTime() - burstStart) / 1e9, completed.get(), held, probe, page);
                    progress.flush();
                    nextLine = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                }
                if (System.nanoTime() >= nextHeap) {
                    heapMax = Math.max(heapMax, liveHeapMb());
                    nextHeap = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                }
                Thread.sleep(1_000);
            }
            enqueuer.join();
            if (enqueueNanos.get() == 0) {
                throw new IllegalStateException("the burst's enqueue failed (its stack trace is above)");
            }
            double drainSeconds = (System.nanoTime() - burstStart) / 1e9;
            long burstCompleted = completed.get() - probes.count();
            if (burstCompleted != jobs) {
                throw new IllegalStateException("the worker completed " + burstCompleted + " burst jobs, not " + jobs);
            }
            double[] pb = sorted(probeBurst);
            double[] db = sorted(dashboardBurst);
            Arrays.sort(probeIdle);
            Arrays.sort(dashboardIdle);
            return new Result(jobs, jobs / (enqueueNanos.get() / 1e9), drainSeconds, heldMax, heapIdle, heapMax,
                    IdleLatency.percentile(probeIdle, 0.5), IdleLatency.percentile(pb, 0.5), IdleLatency.percentile(pb, 0.99),
                    IdleLatency.percentile(dashboardIdle, 0.5), IdleLatency.percentile(db, 0.5), IdleLatency.percentile(db, 0.99),
                    db[db.length - 1]);
        } finally {
            worker.stop(Duration.ofSeconds(10));
        }
    }

    /** One priority-0 job at a time from a client of its own: commit to handler start, in ms. */
    private static final class Probes {
        private final Skipjack prober;
        private final Map<Integer, Long> started;
        private int sent;

        Probes(Skipjack prober, Map<Integer, Long> started) {
            this.prober = prober;
            this.started = started;
        }

        double one(Duration timeout) throws InterruptedException {
            int id = -(++sent);
            prober.enqueue(SkipjackDrain.KIND, new SkipjackDrain.Args(id), PROBE);
            long committed = System.nanoTime();
            long deadline = committed + timeout.toNanos();
            Long at;
            while ((at = started.get(id)) == null) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("probe " + id + " did not start within " + timeout);
                }
                Thread.sleep(1);
            }
            // The handler may start before the commit acknowledgement reaches this thread.
            return Math.max(0, at - committed) / 1e6;
        }

        int count() {
            return sent;
        }
    }

    /** The overview and the first page of available jobs, as the dashboard's page loads them. */
    private double dashboardMillis(SkipjackDashboard dashboard) throws Exception {
        long t0 = System.nanoTime();
        for (String path : List.of("api/overview", "api/jobs?state=available&limit=50")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(dashboard.url() + path))
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
            }
        }
        return (System.nanoTime() - t0) / 1e6;
    }

    private double liveHeapMb() {
        System.gc();
        return memory.getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
    }

    private long running() throws SQLException {
        return count("SELECT count(*) FROM " + jobsTable + " WHERE state = 'running'");
    }

    private long unfinished() throws SQLException {
        return count("SELECT count(*) FROM " + jobsTable + " WHERE state IN ('available', 'running')");
    }

    private long count(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static double[] sorted(List<Double> values) {
        double[] a = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a;
    }
}
