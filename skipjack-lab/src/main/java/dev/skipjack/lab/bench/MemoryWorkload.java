package dev.skipjack.lab.bench;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Issue 15's memory: what a worker process costs idle and what each running job adds. One worker JVM
 * ({@link MemoryWorker}: the running JVM's {@code java} and class path, <em>no</em> JVM flags, so the
 * JVM's defaults, and Skipjack's default configuration with one queue of {@link #CONCURRENCY} slots)
 * is measured idle (after one job ran, so the job path is loaded), then with 8, 64 and 256 jobs
 * running at once in handlers that block until measured. Each reading is the heap used after full
 * collections (MemoryMXBean) and the process's resident set (VmRSS); the cost per running job is
 * the least-squares slope over the readings with jobs running (8, 64, 256). Works on every backend (the worker polls where there
 * is no LISTEN/NOTIFY).
 */
public final class MemoryWorkload {

    public static final List<Integer> RUNNING = List.of(8, 64, 256);
    /** The queue's slots: the most jobs measured running at once. */
    public static final int CONCURRENCY = 256;

    /** One reading of the worker JVM with {@code running} jobs in their handlers. */
    public record Reading(long running, long heapBytes, long rssKb, long threads) {
    }

    private final DataSource dataSource;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String schema;

    public MemoryWorkload(DataSource dataSource, String jdbcUrl, String user, String password, String schema) {
        this.dataSource = dataSource;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.schema = schema;
    }

    /** Starts the worker JVM, takes the readings and returns the RESULT line. */
    public String run(PrintWriter out) throws Exception {
        Skipjack producer = Skipjack.builder(dataSource).schema(schema)
                .kind(JobKind.of(MemoryWorker.KIND, SkipjackDrain.Args.class)).build();
        new BenchTable(dataSource, producer).empty();
        Path log = Files.createTempFile("skipjack-bench-memory-", ".err");
        // No JVM flags: what a worker started with the JVM's defaults costs.
        ProcessBuilder pb = new WorkerJvm(jdbcUrl, user, schema, CONCURRENCY).command(MemoryWorker.class, List.of(), password);
        pb.redirectError(log.toFile());
        Process worker = pb.start();
        try (Writer in = new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8)) {
            BufferedReader stdout = new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
            expect(stdout, "READY", log);
            producer.enqueue(MemoryWorker.KIND, new SkipjackDrain.Args(-1)); // the warm-up: completes at once
            List<Reading> readings = new ArrayList<>();
            readings.add(measure(in, stdout, 0, log));
            long enqueued = 0;
            for (int k : RUNNING) {
                List<JobRequest> more = new ArrayList<>();
                for (long i = enqueued; i < k; i++) {
                    more.add(JobRequest.of(MemoryWorker.KIND, new SkipjackDrain.Args((int) i)));
                }
                producer.enqueueAll(more);
                enqueued = k;
                readings.add(measure(in, stdout, k, log));
            }
            for (Reading r : readings) {
                out.printf(Locale.ROOT, "memory: %3d running: heap %.1f MB after full GC, RSS %.1f MB, %d threads%n",
                        r.running(), r.heapBytes() / 1e6, r.rssKb() / 1e3, r.threads());
            }
            out.flush();
            in.write("RELEASE\n");
            in.flush();
            if (!worker.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the memory worker JVM did not stop; see " + log);
            }
            return resultLine(readings);
        } finally {
            worker.destroyForcibly();
        }
    }

    private static Reading measure(Writer in, BufferedReader stdout, long running, Path log) throws IOException {
        in.write("MEASURE " + running + "\n");
        in.flush();
        return parse(expect(stdout, "MEASURED " + running + " ", log));
    }

    private static String expect(BufferedReader stdout, String prefix, Path log) throws IOException {
        String line = stdout.readLine();
        if (line == null || !line.startsWith(prefix)) {
            throw new IllegalStateException("the memory worker JVM said " + line + ", expected " + prefix.strip()
                    + "; see " + log);
        }
        return line;
    }

    /** {@code MEASURED k heap_bytes rss_kb threads}, as {@link MemoryWorker} prints it. */
    static Reading parse(String line) {
        String[] f = line.split(" ");
        return new Reading(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]));
    }

    /** The RESULT line: the idle reading, each loaded one, and the slopes per running job. */
    static String resultLine(List<Reading> readings) {
        Reading idle = readings.get(0);
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "RESULT workload=memory concurrency=%d jvm_flags=none idle_heap_mb=%.1f idle_rss_mb=%.1f idle_threads=%d",
                CONCURRENCY, idle.heapBytes() / 1e6, idle.rssKb() / 1e3, idle.threads()));
        for (Reading r : readings.subList(1, readings.size())) {
            line.append(String.format(Locale.ROOT, " k%d_heap_mb=%.1f k%d_rss_mb=%.1f", r.running(), r.heapBytes() / 1e6,
                    r.running(), r.rssKb() / 1e3));
        }
        // The slope over the readings with jobs running only: the idle RSS came out above the 8-job
        // one in some runs (heap pages the JVM gives back between readings), so it is off the line.
        List<Reading> loaded = readings.subList(1, readings.size());
        double[] k = loaded.stream().mapToDouble(Reading::running).toArray();
        double heapKbPerJob = slope(k, loaded.stream().mapToDouble(r -> r.heapBytes() / 1e3).toArray());
        double rssKbPerJob = slope(k, loaded.stream().mapToDouble(Reading::rssKb).toArray());
        double threadsPerJob = slope(k, loaded.stream().mapToDouble(Reading::threads).toArray());
        line.append(String.format(Locale.ROOT, " per_running_job_kb=%.1f per_running_job_rss_kb=%.1f"
                + " per_running_job_threads=%.2f", heapKbPerJob, rssKbPerJob, threadsPerJob));
        return line.toString();
    }

    /** The least-squares slope of {@code y} over {@code x}. */
    static double slope(double[] x, double[] y) {
        double mx = 0;
        double my = 0;
        for (int i = 0; i < x.length; i++) {
            mx += x[i] / x.length;
            my += y[i] / y.length;
        }
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
        }
        return sxy / sxx;
    }
}
