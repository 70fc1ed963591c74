package dev.skipjack.lab.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The ceiling and the drain as an outsider measures them: every phase of every round in a JVM of
 * its own ({@link FreshJvm}), started cold with default flags, so neither side is warmed by the
 * other or by earlier rounds, and the warm-up a user's first minute pays is part of the figure.
 * Rounds alternate which side goes first (ceiling then Skipjack, then Skipjack then ceiling, ...)
 * so both see the same weather; the parent only empties the table between phases and checks it.
 */
public final class FreshRounds {

    /**
     * Medians over the rounds: jobs per second, and microseconds of the phase's JVM CPU per job
     * (all its threads, the JIT compiler's and the collector's included), which the shared
     * machine's load moves far less than the rates.
     */
    public record Result(double ceilingEnqueue, double ceilingProcess, double enqueue, double process,
                         double ceilingEnqueueCpuMicros, double ceilingProcessCpuMicros, double enqueueCpuMicros,
                         double processCpuMicros) {
    }

    /** What one phase's JVM reported: jobs per second, and CPU microseconds per job. */
    record Phase(double perSecond, double cpuMicrosPerJob) {
    }

    private final BenchTable table;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String schema;

    private final List<String> jvmFlags;

    /** {@code jvmFlags}: extra flags for every phase's JVM (none by default, as a user starts one). */
    public FreshRounds(BenchTable table, String jdbcUrl, String user, String password, String schema, List<String> jvmFlags) {
        this.table = table;
        this.jvmFlags = List.copyOf(jvmFlags);
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.schema = schema;
    }

    /** The JVM flags every phase runs with, as printed with the figures. */
    public static String describeFlags(List<String> jvmFlags) {
        return jvmFlags.isEmpty() ? "none (the JVM's defaults)" : String.join(" ", jvmFlags);
    }

    public Result run(int jobs, int concurrency, int runs, boolean skipjack, PrintWriter out) throws Exception {
        Path logDir = Files.createTempDirectory("skipjack-bench-fresh-");
        // [side][measure][round]; side 0 the ceiling, 1 Skipjack; measures: enqueue rate, drain rate, their CPU per job.
        double[][][] m = new double[2][4][runs];
        for (int r = 0; r < runs; r++) {
            boolean ceilingFirst = r % 2 == 0;
            for (int i = 0; i < 2; i++) {
                int side = (i == 0) == ceilingFirst ? 0 : 1;
                if (side == 1 && !skipjack) {
                    continue;
                }
                table.empty();
                Phase enqueue = phase(side == 0 ? "ceiling-enqueue" : "enqueue", jobs, concurrency, logDir);
                long unfinished = table.unfinished();
                if (unfinished != jobs) {
                    throw new IllegalStateException("after the enqueue the table holds " + unfinished + " available jobs, not " + jobs);
                }
                Phase drain = phase(side == 0 ? "ceiling-drain" : "drain", jobs, concurrency, logDir);
                if (table.unfinished() != 0) {
                    throw new IllegalStateException("the drain left jobs unfinished");
                }
                m[side][0][r] = enqueue.perSecond();
                m[side][1][r] = drain.perSecond();
                m[side][2][r] = enqueue.cpuMicrosPerJob();
                m[side][3][r] = drain.cpuMicrosPerJob();
            }
            out.printf(Locale.ROOT, "round %d/%d, N=%,d, fresh JVMs: ceiling enqueue %,.0f/s (%.1f us CPU/job) drain %,.0f/s"
                    + " (%.1f us)", r + 1, runs, jobs, m[0][0][r], m[0][2][r], m[0][1][r], m[0][3][r]);
            if (skipjack) {
                out.printf(Locale.ROOT, "; skipjack enqueue %,.0f/s (%.2f; %.1f us) drain %,.0f/s (%.2f; %.1f us)",
                        m[1][0][r], m[1][0][r] / m[0][0][r], m[1][2][r], m[1][1][r], m[1][1][r] / m[0][1][r], m[1][3][r]);
            }
            out.println();
            out.flush();
        }
        return new Result(Median.of(m[0][0]), Median.of(m[0][1]), Median.of(m[1][0]), Median.of(m[1][1]),
                Median.of(m[0][2]), Median.of(m[0][3]), Median.of(m[1][2]), Median.of(m[1][3]));
    }

    private Phase phase(String phase, int jobs, int concurrency, Path logDir) throws IOException, InterruptedException {
        // RATE <jobs per second> <CPU microseconds per job>
        String[] f = lineOf(phase, jobs, concurrency, logDir, "RATE ").split(" ");
        return new Phase(Double.parseDouble(f[1]), Double.parseDouble(f[2]));
    }

    /**
     * Single-job enqueue latency ({@link EnqueueLatency}) in a fresh JVM, whose first call is the
     * cold one; the table is emptied before and after. Returns the RESULT fields.
     */
    public String enqueueLatency(int samples) throws Exception {
        table.empty();
        String fields = lineOf("enqueue-latency", samples, 1, Files.createTempDirectory("skipjack-bench-fresh-"), "FIELDS ")
                .substring("FIELDS ".length());
        table.empty();
        return fields;
    }

    /** Runs one phase in a new JVM and returns the first line it printed that starts with {@code prefix}. */
    private String lineOf(String phase, int jobs, int concurrency, Path logDir, String prefix)
            throws IOException, InterruptedException {
        ProcessBuilder pb = WorkerJvm.java(FreshJvm.class, jvmFlags, password, List.of(phase, jdbcUrl,
                user == null ? "-" : user, schema, Integer.toString(jobs), Integer.toString(concurrency)));
        Path log = logDir.resolve(phase + ".err");
        pb.redirectError(log.toFile());
        Process p = pb.start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader stdout = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = stdout.readLine()) != null; ) {
                lines.add(l);
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("the " + phase + " JVM did not finish in 10 minutes; see " + log);
        }
        for (String l : lines) {
            if (l.startsWith(prefix)) {
                return l;
            }
        }
        throw new IllegalStateException("the " + phase + " JVM exited " + p.exitValue() + " without its " + prefix.trim()
                + " line; see " + log + ":\n" + Files.readString(log));
    }
}
