package dev.skipjack.cli;

import dev.skipjack.Skipjack;
import dev.skipjack.cli.bench.IdleLatency;
import dev.skipjack.cli.bench.RawCeiling;
import dev.skipjack.cli.bench.SkipjackDrain;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

/**
 * {@code skipjack bench}: the workloads of BENCHMARK.md, each reported next to the raw SQL ceiling
 * measured in the same run, ending with one {@code RESULT} line per workload.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Runs the benchmark workloads and prints RESULT lines (see docs/benchmarks.md).",
                "Every Skipjack figure is also given as a ratio to the raw SQL ceiling of the same run.",
                "Uses schema 'skipjack_bench' (or --schema) and empties its jobs table between runs.",
                "Without --url or SKIPJACK_DATABASE_URL, runs on an embedded PostgreSQL."})
public final class BenchCommand implements Callable<Integer> {

    private static final String DEFAULT_SCHEMA = "skipjack_bench";
    static final List<String> IMPLEMENTED = List.of("ceiling", "drain", "latency");
    static final List<String> ALL = List.of("ceiling", "drain", "latency", "stream", "depth", "scale", "soak");
    /** Connections beyond the ceiling's threads: fetcher, completer, heartbeat, maintenance, listener, producer. */
    private static final int POOL_HEADROOM = 8;
    private static final int POLLING_LATENCY_SAMPLES = 20;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private DatabaseOptions database;

    @Option(names = "--quick", description = "The under-two-minute subset: ceiling, drain and latency, N=20,000.")
    private boolean quick;

    @Option(names = "--workloads", split = ",", paramLabel = "NAME",
            description = "Workloads to run, comma-separated, from: ${COMPLETION-CANDIDATES}. Default: all implemented.",
            completionCandidates = WorkloadNames.class)
    private List<String> workloads;

    @Option(names = "--jobs", paramLabel = "N", split = ",",
            description = "Drain sizes (default: 20000 with --quick, else 20000,200000).")
    private List<Integer> jobCounts;

    @Option(names = "--runs", defaultValue = "3", paramLabel = "N",
            description = "Rounds of ceiling and drain, alternated; medians are reported (default: ${DEFAULT-VALUE}).")
    private int runs;

    @Option(names = "--concurrency", defaultValue = "8", paramLabel = "N",
            description = "Worker concurrency of drain (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--latency-samples", defaultValue = "200", paramLabel = "N",
            description = "Jobs the latency workload enqueues one at a time (default: ${DEFAULT-VALUE}).")
    private int latencySamples;

    static final class WorkloadNames extends ArrayList<String> {
        WorkloadNames() {
            super(ALL);
        }
    }

    @Override
    public Integer call() throws Exception {
        Set<String> selected = new LinkedHashSet<>(workloads == null ? IMPLEMENTED : workloads);
        for (String w : selected) {
            if (!ALL.contains(w)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown workload '" + w + "'; known: " + ALL);
            }
        }
        List<Integer> sizes = jobCounts != null ? jobCounts : quick ? List.of(20_000) : List.of(20_000, 200_000);
        for (int n : sizes) {
            requirePositive("--jobs", n);
        }
        requirePositive("--runs", runs);
        requirePositive("--concurrency", concurrency);
        requirePositive("--latency-samples", latencySamples);
        PrintWriter out = spec.commandLine().getOut();
        List<String> results = new ArrayList<>();
        try (DatabaseConnection connection = DatabaseConnection.open(database.url(),
                Math.max(RawCeiling.THREADS, concurrency) + POOL_HEADROOM, out)) {
            DataSource ds = connection.dataSource();
            String schema = database.schemaOr(DEFAULT_SCHEMA);
            Skipjack.builder(ds).schema(schema).build().migrate();
            out.println("Database: " + serverVersion(ds) + "; " + Runtime.getRuntime().availableProcessors()
                    + " cores; Java " + Runtime.version());
            out.flush();

            boolean drainOrCeiling = selected.contains("drain") || selected.contains("ceiling");
            if (drainOrCeiling) {
                for (int n : sizes) {
                    runCeilingAndDrain(ds, schema, n, selected.contains("drain"), out, results);
                }
            }
            if (selected.contains("latency")) {
                IdleLatency latency = new IdleLatency(ds, schema);
                for (boolean notify : new boolean[] {true, false}) {
                    // Polling waits up to a poll interval (1 s) per job: fewer samples tell enough.
                    int samples = notify ? latencySamples : Math.min(latencySamples, POLLING_LATENCY_SAMPLES);
                    out.printf("latency (%s): %d jobs, one at a time, 20 ms apart...%n",
                            notify ? "LISTEN/NOTIFY" : "polling only, as behind PgBouncer", samples);
                    out.flush();
                    IdleLatency.Percentiles p = latency.run(samples, Duration.ofMillis(20), notify);
                    results.add(String.format(Locale.ROOT, "RESULT workload=latency wakeup=%s samples=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f",
                            notify ? "notify" : "poll", samples, p.p50(), p.p99(), p.max()));
                }
            }
            for (String w : selected) {
                if (!IMPLEMENTED.contains(w)) {
                    out.println("workload " + w + " is not implemented yet: no RESULT line");
                }
            }
        }
        out.println();
        results.forEach(out::println);
        out.flush();
        return 0;
    }

    private void runCeilingAndDrain(DataSource ds, String schema, int jobs, boolean drain, PrintWriter out,
                                    List<String> results) throws Exception {
        Skipjack tableOwner = Skipjack.builder(ds).schema(schema).build();
        RawCeiling ceiling = new RawCeiling(new dev.skipjack.cli.bench.BenchTable(ds, tableOwner.jobsTable()));
        SkipjackDrain skipjackDrain = new SkipjackDrain(ds, schema);
        // One small unreported round of each first, so neither pays for class loading and JIT alone.
        int warmUp = Math.max(1_000, jobs / 10);
        ceiling.run(warmUp, SkipjackDrain.QUEUE, SkipjackDrain.KIND);
        if (drain) {
            skipjackDrain.run(warmUp, concurrency);
        }
        double[] ceilEnq = new double[runs];
        double[] ceilProc = new double[runs];
        double[] sjEnq = new double[runs];
        double[] sjProc = new double[runs];
        for (int r = 0; r < runs; r++) {
            RawCeiling.Rates c = ceiling.run(jobs, SkipjackDrain.QUEUE, SkipjackDrain.KIND);
            ceilEnq[r] = c.enqueuePerSecond();
            ceilProc[r] = c.processPerSecond();
            out.printf(Locale.ROOT, "round %d/%d, N=%,d: ceiling enqueue %,.0f/s process %,.0f/s", r + 1, runs, jobs,
                    c.enqueuePerSecond(), c.processPerSecond());
            if (drain) {
                RawCeiling.Rates s = skipjackDrain.run(jobs, concurrency);
                sjEnq[r] = s.enqueuePerSecond();
                sjProc[r] = s.processPerSecond();
                out.printf(Locale.ROOT, "; skipjack enqueue %,.0f/s process %,.0f/s", s.enqueuePerSecond(), s.processPerSecond());
            }
            out.println();
            out.flush();
        }
        double ceilingEnqueue = median(ceilEnq);
        double ceilingProcess = median(ceilProc);
        results.add(String.format(Locale.ROOT, "RESULT workload=ceiling jobs=%d threads=%d batch=%d runs=%d enqueue_per_s=%.0f process_per_s=%.0f",
                jobs, RawCeiling.THREADS, RawCeiling.CLAIM_BATCH, runs, ceilingEnqueue, ceilingProcess));
        if (drain) {
            double enqueue = median(sjEnq);
            double process = median(sjProc);
            results.add(String.format(Locale.ROOT, "RESULT workload=drain jobs=%d concurrency=%d runs=%d enqueue_per_s=%.0f enqueue_ratio_to_ceiling=%.2f process_per_s=%.0f ratio_to_ceiling=%.2f",
                    jobs, concurrency, runs, enqueue, enqueue / ceilingEnqueue, process, process / ceilingProcess));
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String serverVersion(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            return "PostgreSQL " + rs.getString(1);
        }
    }

    private void requirePositive(String option, int value) {
        if (value < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " must be at least 1, got " + value);
        }
    }
}
