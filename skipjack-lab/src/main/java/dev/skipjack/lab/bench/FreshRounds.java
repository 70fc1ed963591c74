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
import java.util.function.ToDoubleFunction;

/**
 * The ceiling and the drain as an outsider measures them: every phase of every round in a JVM of
 * its own ({@link FreshJvm}), started cold with default flags, so neither side is warmed by the
 * other or by earlier rounds, and the warm-up a user's first minute pays is part of the figure.
 * Rounds alternate which side goes first (ceiling then Skipjack, then Skipjack then ceiling, ...)
 * so both see the same weather; the parent only empties the table between phases and checks it.
 */
public final class FreshRounds {

    /** Medians over the rounds, for the ceiling and for Skipjack. */
    public record Result(Side ceiling, Side skipjack) {
    }

    /**
     * One side's medians: its enqueue phase and its drain phase.
     */
    public record Side(Phase enqueue, Phase drain) {
    }

    /**
     * What one phase's JVM reported: jobs per second; microseconds of the JVM's CPU per job over
     * the whole phase (all its threads, the JIT compiler's and the collector's included, building
     * the client too), which the shared machine's load moves far less than the rates; and the
     * same inside the timed window alone, of which {@code windowJitMicrosPerJob} is the JIT
     * compiler threads' ({@link PhaseWindow}; -1 where it cannot be read).
     */
    public record Phase(double perSecond, double cpuMicrosPerJob, double windowCpuMicrosPerJob,
                        double windowJitMicrosPerJob) {

        static Phase median(Phase[] rounds) {
            return new Phase(Median.of(each(rounds, Phase::perSecond)), Median.of(each(rounds, Phase::cpuMicrosPerJob)),
                    Median.of(each(rounds, Phase::windowCpuMicrosPerJob)), Median.of(each(rounds, Phase::windowJitMicrosPerJob)));
        }

        private static double[] each(Phase[] rounds, ToDoubleFunction<Phase> field) {
            double[] values = new double[rounds.length];
            for (int i = 0; i < rounds.length; i++) {
                values[i] = field.applyAsDouble(rounds[i]);
            }
            return values;
        }

        /** The RESULT fields {@code <prefix>_window_cpu_us_per_job} and {@code <prefix>_jit_cpu_us_per_job}. */
        public String windowFields(String prefix) {
            return String.format(Locale.ROOT, "%s_window_cpu_us_per_job=%.1f %s_jit_cpu_us_per_job=%.1f", prefix,
                    windowCpuMicrosPerJob, prefix, windowJitMicrosPerJob);
        }
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
        // [side][round]; side 0 the ceiling, 1 Skipjack.
        Phase[][] enqueues = new Phase[2][runs];
        Phase[][] drains = new Phase[2][runs];
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
                enqueues[side][r] = enqueue;
                drains[side][r] = drain;
            }
            Phase ce = enqueues[0][r];
            Phase cd = drains[0][r];
            out.printf(Locale.ROOT, "round %d/%d, N=%,d, fresh JVMs (us CPU/job: phase; timed window, of it JIT):"
                    + " ceiling enqueue %,.0f/s (%s) drain %,.0f/s (%s)", r + 1, runs, jobs, ce.perSecond(), cpu(ce),
                    cd.perSecond(), cpu(cd));
            if (skipjack) {
                Phase se = enqueues[1][r];
                Phase sd = drains[1][r];
                out.printf(Locale.ROOT, "; skipjack enqueue %,.0f/s (%.2f; %s) drain %,.0f/s (%.2f; %s)", se.perSecond(),
                        se.perSecond() / ce.perSecond(), cpu(se), sd.perSecond(), sd.perSecond() / cd.perSecond(), cpu(sd));
            }
            out.println();
            out.flush();
        }
        Side ceiling = new Side(Phase.median(enqueues[0]), Phase.median(drains[0]));
        return new Result(ceiling, skipjack ? new Side(Phase.median(enqueues[1]), Phase.median(drains[1])) : null);
    }

    private static String cpu(Phase p) {
        return String.format(Locale.ROOT, "%.1f; %.1f, %.1f", p.cpuMicrosPerJob(), p.windowCpuMicrosPerJob(),
                p.windowJitMicrosPerJob());
    }

    private Phase phase(String phase, int jobs, int concurrency, Path logDir) throws IOException, InterruptedException {
        // RATE <jobs per second> <CPU µs per job> <window CPU µs per job> <window JIT CPU µs per job>
        String[] f = lineOf(phase, jobs, concurrency, logDir, "RATE ").split(" ");
        return new Phase(Double.parseDouble(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3]),
                Double.parseDouble(f[4]));
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
