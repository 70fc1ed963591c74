package dev.skipjack.lab.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Bulk enqueue as an outsider measures it: each side in its own fresh JVM, the raw multi-row
 * insert (RawCeiling's statement, {@code ceiling_insert.sql}) against Skipjack's
 * {@code enqueueAll} of the same rows from a producer-only client, alternated, median of the
 * repetitions. A fresh JVM is the point: the in-process {@code bench} runs both sides warm, which
 * hides Skipjack's first-call costs (Jackson's serializers, its own classes, the driver's array
 * binding) that a user's first bulk enqueue pays.
 *
 * <pre>
 * java -cp skipjack-lab.jar dev.skipjack.lab.bench.ColdEnqueue compare JDBC_URL JOBS REPETITIONS [JVM_FLAG...]
 * java -cp skipjack-lab.jar dev.skipjack.lab.bench.ColdEnqueue raw|skipjack JDBC_URL JOBS   (one side, one JVM)
 * java -cp skipjack-lab.jar dev.skipjack.lab.bench.ColdEnqueue latency JDBC_URL SAMPLES      ({@link EnqueueLatency})
 * </pre>
 *
 * The timed span is the insert call alone (the raw loop with its commit; {@code enqueueAll}),
 * after the pool and, for Skipjack, the client are built; the client's build time is printed
 * apart. The tables live in schema {@value #SCHEMA} (PostgreSQL; on MariaDB the URL's database),
 * so the runs do not disturb other benchmarks on a shared server.
 */
public final class ColdEnqueue {

    static final String SCHEMA = "skipjack_enqueue_bench";
    private static final String KIND = SkipjackDrain.KIND;
    private static final String QUEUE = SkipjackDrain.QUEUE;

    private ColdEnqueue() {
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length < 3) {
            System.err.println("usage: ColdEnqueue compare|raw|skipjack JDBC_URL JOBS [REPETITIONS [JVM_FLAG...]]");
            System.exit(2);
        }
        String url = argv[1];
        int jobs = Integer.parseInt(argv[2]);
        switch (argv[0]) {
            case "compare" -> compare(url, jobs, argv.length > 3 ? Integer.parseInt(argv[3]) : 3,
                    Arrays.asList(argv).subList(Math.min(argv.length, 4), argv.length));
            case "raw", "skipjack" -> System.out.println(side(argv[0], url, jobs));
            case "latency" -> System.out.println(latency(url, jobs));
            default -> throw new IllegalArgumentException("unknown mode " + argv[0]);
        }
    }

    /** One side in this JVM; returns its line {@code COLD side=... per_s=...}. */
    private static String side(String side, String url, int jobs) throws Exception {
        try (HikariDataSource ds = pool(url)) {
            long buildStart = System.nanoTime();
            Skipjack client = builder(ds, url).kind(JobKind.of(KIND, SkipjackDrain.Args.class)).build();
            double buildMs = (System.nanoTime() - buildStart) / 1e6;
            BenchTable table = new BenchTable(ds, client);
            table.empty();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long cpuStart = threads.getCurrentThreadCpuTime();
            long processCpuStart = PhaseWindow.processCpuNanos();
            double seconds = side.equals("raw") ? raw(table, jobs) : skipjack(client, jobs);
            // The calling thread's CPU: the client's own work, less sensitive to a loaded machine
            // than the wall clock; the process's adds the JIT compiler's and GC's threads.
            double cpuMs = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e6;
            double processCpuMs = (PhaseWindow.processCpuNanos() - processCpuStart) / 1e6;
            return String.format(java.util.Locale.ROOT,
                    "COLD side=%s jobs=%d per_s=%.0f seconds=%.4f thread_cpu_ms=%.1f process_cpu_ms=%.1f client_build_ms=%.1f",
                    side, jobs, jobs / seconds, seconds, cpuMs, processCpuMs, side.equals("raw") ? 0.0 : buildMs);
        }
    }

    /** Single-job enqueue latency in this (fresh) JVM: the first call is the cold one. */
    private static String latency(String url, int samples) throws Exception {
        try (HikariDataSource ds = pool(url)) {
            BenchTable table = new BenchTable(ds, builder(ds, url).build());
            table.empty();
            EnqueueLatency.Result result = new EnqueueLatency(ds, url.startsWith("jdbc:postgresql:") ? SCHEMA : null).run(samples);
            table.empty();
            return "RESULT workload=enqueue_latency jvm=fresh " + result.fields();
        }
    }

    /** RawCeiling's enqueue: the same statement and chunks, the same {@code {"n": i}} texts. */
    private static double raw(BenchTable table, int jobs) throws SQLException {
        String sql = table.sql("ceiling_insert");
        boolean arrays = table.backend() == dev.skipjack.Backend.POSTGRESQL;
        long start = System.nanoTime();
        try (Connection c = table.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int from = 0; from < jobs; from += RawCeiling.INSERT_ROWS_PER_STATEMENT) {
                    int to = Math.min(jobs, from + RawCeiling.INSERT_ROWS_PER_STATEMENT);
                    ps.setString(1, QUEUE);
                    ps.setString(2, KIND);
                    if (arrays) {
                        String[] args = new String[to - from];
                        for (int i = from; i < to; i++) {
                            args[i - from] = "{\"n\": " + i + "}";
                        }
                        ps.setArray(3, c.createArrayOf("text", args));
                    } else {
                        StringBuilder json = new StringBuilder("[");
                        for (int i = from; i < to; i++) {
                            json.append(i == from ? "" : ",").append("\"{\\\"n\\\": ").append(i).append("}\"");
                        }
                        ps.setString(3, json.append(']').toString());
                    }
                    ps.executeUpdate();
                }
            }
            c.commit();
            c.setAutoCommit(true);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** BENCHMARK.md's bulk enqueue: the requests built first, then one {@code enqueueAll} timed. */
    private static double skipjack(Skipjack client, int jobs) {
        List<JobRequest> requests = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of(KIND, new SkipjackDrain.Args(i)));
        }
        long start = System.nanoTime();
        List<Long> ids = client.enqueueAll(requests);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (ids.size() != jobs) {
            throw new IllegalStateException("enqueueAll returned " + ids.size() + " ids for " + jobs + " jobs");
        }
        return seconds;
    }

    /** Runs the sides alternately, each in a fresh JVM, and prints the medians and their ratio. */
    private static void compare(String url, int jobs, int repetitions, List<String> jvmFlags) throws Exception {
        try (HikariDataSource ds = pool(url)) {
            builder(ds, url).build().migrate();
        }
        List<Double> raw = new ArrayList<>();
        List<Double> skipjack = new ArrayList<>();
        for (int r = 0; r < repetitions; r++) {
            // Alternate which side goes first, so neither always runs on the other's leftovers.
            boolean rawFirst = r % 2 == 0;
            for (String side : rawFirst ? List.of("raw", "skipjack") : List.of("skipjack", "raw")) {
                String line = child(side, url, jobs, jvmFlags);
                System.out.println(line);
                double perSecond = Double.parseDouble(line.replaceAll(".*per_s=(\\S+).*", "$1"));
                (side.equals("raw") ? raw : skipjack).add(perSecond);
            }
        }
        double rawMedian = Median.of(raw.stream().mapToDouble(Double::doubleValue).toArray());
        double skipjackMedian = Median.of(skipjack.stream().mapToDouble(Double::doubleValue).toArray());
        System.out.printf(java.util.Locale.ROOT,
                "RESULT workload=enqueue_cold jobs=%d repetitions=%d ceiling_enqueue_per_s=%.0f enqueue_per_s=%.0f ratio_enqueue=%.2f%n",
                jobs, repetitions, rawMedian, skipjackMedian, skipjackMedian / rawMedian);
    }

    private static String child(String side, String url, int jobs, List<String> jvmFlags) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmFlags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ColdEnqueue.class.getName(),
                side, url, Integer.toString(jobs)));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String result = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("COLD ")) {
                    result = line;
                } else {
                    System.out.println("  " + line);
                }
            }
        }
        if (p.waitFor() != 0 || result == null) {
            throw new IllegalStateException(side + " JVM failed (exit " + p.exitValue() + ")");
        }
        return result;
    }

    /** A client on the bench schema on PostgreSQL; elsewhere on the URL's database (MariaDB) or file (SQLite). */
    private static Skipjack.Builder builder(HikariDataSource ds, String url) {
        Skipjack.Builder b = Skipjack.builder(ds);
        return url.startsWith("jdbc:postgresql:") ? b.schema(SCHEMA) : b;
    }

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("cold-enqueue");
        config.setJdbcUrl(url);
        if (url.startsWith("jdbc:postgresql:") && !url.contains("user=")) {
            config.setUsername("postgres");
        }
        if (url.startsWith("jdbc:mariadb:") && !url.contains("user=")) {
            config.setUsername("root");
        }
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(1);
        if (url.startsWith("jdbc:sqlite:")) {
            new File(url.substring("jdbc:sqlite:".length()).replaceAll("\\?.*", "")).getAbsoluteFile().getParentFile().mkdirs();
        }
        return new HikariDataSource(config);
    }
}
