package dev.skipjack.lab;

import dev.skipjack.Backend;
import dev.skipjack.Skipjack;
import dev.skipjack.cli.DatabaseConnection;
import dev.skipjack.cli.DatabaseOptions;
import dev.skipjack.cli.DatabaseUrl;
import dev.skipjack.lab.bench.BenchPlot;
import dev.skipjack.lab.bench.BurstWorkload;
import dev.skipjack.lab.bench.BenchTable;
import dev.skipjack.lab.bench.DepthWorkload;
import dev.skipjack.lab.bench.FreshJvm;
import dev.skipjack.lab.bench.FreshRounds;
import dev.skipjack.lab.bench.IdleLatency;
import dev.skipjack.lab.bench.Median;
import dev.skipjack.lab.bench.ModesWorkload;
import dev.skipjack.lab.bench.PickupLatency;
import dev.skipjack.lab.bench.RawCeiling;
import dev.skipjack.lab.bench.ScaleWorkload;
import dev.skipjack.lab.bench.SkipjackDrain;
import dev.skipjack.lab.bench.Soak;
import dev.skipjack.lab.bench.ShardsWorkload;
import dev.skipjack.lab.bench.SteadyStream;
import dev.skipjack.lab.bench.MemoryWorkload;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

/**
 * {@code skipjack-lab bench}: the workloads of BENCHMARK.md, each reported next to the raw SQL ceiling
 * measured in the same run, ending with one {@code RESULT} line per workload.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Runs the benchmark workloads and prints RESULT lines (see docs/benchmarks.md).",
                "Every Skipjack figure is also given as a ratio to the raw SQL ceiling of the same run.",
                "Uses schema 'skipjack_bench' (or --schema) and empties its jobs table between runs.",
                "Without --url or SKIPJACK_DATABASE_URL, runs on an embedded PostgreSQL; with --url also on",
                "MariaDB, MySQL or SQLite, the ceiling in that database's own SQL. Workloads that read",
                "PostgreSQL's internals (depth, scale, soak; latency's LISTEN/NOTIFY half) are skipped elsewhere."})
public final class BenchCommand implements Callable<Integer> {

    private static final String DEFAULT_SCHEMA = "skipjack_bench";
    static final List<String> IMPLEMENTED = List.of("ceiling", "drain", "latency", "stream", "depth", "scale", "soak", "burst",
            "shards", "memory", "modes");
    /** What --quick runs: the workloads that fit in two minutes. */
    static final List<String> QUICK = List.of("ceiling", "drain", "latency");
    /** Soak rate when neither --soak-rate nor a stream result of the same run gives one. */
    private static final int DEFAULT_SOAK_RATE = 1_000;
    /** depth and scale drain this many jobs (or the first --jobs size). */
    private static final int DEPTH_AND_SCALE_JOBS = 20_000;
    static final List<String> ALL = List.of("ceiling", "drain", "latency", "stream", "depth", "scale", "soak", "burst",
            "shards", "memory", "modes");
    /** Connections beyond the ceiling's threads: fetcher, completer, heartbeat, maintenance, listener, producer. */
    private static final int POOL_HEADROOM = 8;
    private static final int POLLING_LATENCY_SAMPLES = 20;
    /** Workloads that read PostgreSQL's internals, and why they cannot run elsewhere. */
    static final Map<String, String> POSTGRES_ONLY = Map.of(
            "depth", "fills the table with generate_series and settles it with VACUUM (ANALYZE)",
            "scale", "counts the workers' connections in pg_stat_activity",
            "soak", "measures dead tuples and autovacuum in pg_stat_user_tables");

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private DatabaseOptions database;

    @Option(names = "--quick", description = "The under-two-minute subset: ceiling, drain and latency, N=20,000 (not depth or scale).")
    private boolean quick;

    @Option(names = "--workloads", split = ",", paramLabel = "NAME",
            description = "Workloads to run, comma-separated, from: ${COMPLETION-CANDIDATES}. Default: all implemented.",
            completionCandidates = WorkloadNames.class)
    private List<String> workloads;

    @Option(names = "--jobs", paramLabel = "N", split = ",",
            description = "Drain sizes (default: 20000 with --quick, else 20000,200000); depth and scale use the first (default 20000).")
    private List<Integer> jobCounts;

    @Option(names = "--runs", defaultValue = "3", paramLabel = "N",
            description = "Rounds of ceiling and drain, alternated; medians are reported (default: ${DEFAULT-VALUE}).")
    private int runs;

    @Option(names = "--jvm", defaultValue = "fresh", paramLabel = "fresh|warm",
            description = {"How ceiling and drain are measured: fresh, every phase of every round in a new JVM with default",
                    "flags, as an outsider would; warm, both in this JVM after unreported warm-up rounds (default: ${DEFAULT-VALUE})."})
    private String jvm;

    @Option(names = "--jvm-flags", paramLabel = "FLAGS", defaultValue = "",
            description = "With --jvm fresh: flags for every phase's JVM, space-separated (default: none, the JVM's defaults).")
    private String jvmFlags;

    @Option(names = "--concurrency", defaultValue = "8", paramLabel = "N",
            description = "Worker concurrency of drain and depth (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--depths", paramLabel = "ROWS", split = ",", defaultValue = "0,1000000,10000000",
            description = {"Terminal rows in the table for the depth workload, comma-separated (0 is always run);",
                    "each depth but 0 also holds min(depth, 1,000,000) rows scheduled far ahead (default: ${DEFAULT-VALUE})."})
    private List<Long> depths;

    @Option(names = "--latency-samples", defaultValue = "200", paramLabel = "N",
            description = "Jobs the latency workload enqueues one at a time (default: ${DEFAULT-VALUE}).")
    private int latencySamples;

    @Option(names = "--stream-seconds", defaultValue = "60", paramLabel = "S",
            description = "Length of each stream step in seconds (default: ${DEFAULT-VALUE}).")
    private int streamSeconds;

    @Option(names = "--stream-rates", split = ",", paramLabel = "PER_S", defaultValue = "1000,2000,5000,10000,20000",
            description = "Offered rates of the stream steps, jobs/s, in order; stops at the first not sustained (default: ${DEFAULT-VALUE}).")
    private List<Integer> streamRates;

    @Option(names = "--soak-minutes", defaultValue = "30", paramLabel = "M",
            description = "Length of the soak in minutes; 10 for CI-like runs, at least 2 (default: ${DEFAULT-VALUE}).")
    private int soakMinutes;

    @Option(names = "--soak-rate", paramLabel = "PER_S",
            description = "Offered rate of the soak, jobs/s (default: half the stream's max sustained rate of this run, else 1000).")
    private Integer soakRate;

    @Option(names = "--shard-counts", split = ",", paramLabel = "N", defaultValue = "1,2,3",
            description = "shards: drain through a ShardedSkipjack over this many databases of the server (default: ${DEFAULT-VALUE}).")
    private List<Integer> shardCounts;

    @Option(names = "--plots", defaultValue = "bench-plots", paramLabel = "DIR",
            description = "Where depth and scale write their PNG plots of throughput (default: ${DEFAULT-VALUE}).")
    private Path plots;

    /** Cores, database and Java of this run, and when: the subtitle of every plot. */
    private String machine;

    @Option(names = "--burst-jobs", defaultValue = "1000000", paramLabel = "N",
            description = "Jobs the burst workload enqueues at once while a worker runs (default: ${DEFAULT-VALUE}).")
    private long burstJobs;

    static final class WorkloadNames extends ArrayList<String> {
        WorkloadNames() {
            super(ALL);
        }
    }

    @Override
    public Integer call() throws Exception {
        Set<String> selected = new LinkedHashSet<>(workloads != null ? workloads : quick ? QUICK : IMPLEMENTED);
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
        requirePositive("--stream-seconds", streamSeconds);
        streamRates.forEach(r -> requirePositive("--stream-rates", r));
        if (soakMinutes < 2) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--soak-minutes must be at least 2, got " + soakMinutes);
        }
        if (soakRate != null) {
            requirePositive("--soak-rate", soakRate);
        }
        if (burstJobs < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--burst-jobs must be positive, got " + burstJobs);
        }
        for (long d : depths) {
            if (d < 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--depths must not be negative, got " + d);
            }
        }
        if (!jvm.equals("fresh") && !jvm.equals("warm")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--jvm must be fresh or warm, got '" + jvm + "'");
        }
        boolean fresh = jvm.equals("fresh");
        PrintWriter out = spec.commandLine().getOut();
        List<String> results = new ArrayList<>();
        try (DatabaseConnection connection = DatabaseConnection.open(database.url(),
                Math.max(RawCeiling.THREADS, concurrency) + POOL_HEADROOM, out)) {
            DataSource ds = connection.dataSource();
            String schema = database.schemaFor(connection.url(), DEFAULT_SCHEMA);
            Skipjack owner = Skipjack.builder(ds).schema(schema).build();
            owner.migrate();
            Backend backend = owner.backend();
            out.println("Database: " + serverVersion(ds) + "; " + Runtime.getRuntime().availableProcessors()
                    + " cores; Java " + Runtime.version() + "; ceiling and drain in "
                    + (fresh ? "a fresh JVM per phase, JVM flags: " + FreshRounds.describeFlags(jvmFlagList()) : "this JVM, warmed up"));
            if (backend != Backend.POSTGRESQL) {
                for (String w : POSTGRES_ONLY.keySet()) {
                    if (selected.remove(w)) {
                        out.println("Skipping " + w + " on " + backend.productName() + ": it " + POSTGRES_ONLY.get(w)
                                + " (PostgreSQL only)");
                    }
                }
            }
            machine = serverVersion(ds) + "; " + Runtime.getRuntime().availableProcessors() + " cores; Java "
                    + Runtime.version() + "; " + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
            out.flush();

            boolean drainOrCeiling = selected.contains("drain") || selected.contains("ceiling");
            if (drainOrCeiling) {
                for (int n : sizes) {
                    if (fresh) {
                        runFreshCeilingAndDrain(connection, ds, schema, n, selected.contains("drain"), out, results);
                    } else {
                        runCeilingAndDrain(ds, schema, n, selected.contains("drain"), out, results);
                    }
                }
            }
            if (selected.contains("latency")) {
                if (fresh) {
                    runFreshLatency(connection, ds, schema, backend, out, results);
                } else {
                    runLatency(ds, schema, backend, out, results);
                }
            }
            int maxSustained = 0;
            if (selected.contains("stream")) {
                maxSustained = runStream(ds, schema, out, results);
            }
            if (selected.contains("soak")) {
                int rate = soakRate != null ? soakRate : maxSustained > 0 ? maxSustained / 2 : DEFAULT_SOAK_RATE;
                runSoak(ds, schema, rate, out, results);
        }
            if (selected.contains("burst")) {
                runBurst(ds, schema, out, results);
            }
            int depthAndScaleJobs = jobCounts != null ? sizes.get(0) : DEPTH_AND_SCALE_JOBS;
            if (selected.contains("depth")) {
                runDepth(ds, schema, depthAndScaleJobs, out, results);
            }
            if (selected.contains("scale")) {
                runScale(connection, schema, depthAndScaleJobs, out, results);
            }
            if (selected.contains("shards")) {
                runShards(connection, depthAndScaleJobs, out, results);
            }
            if (selected.contains("memory")) {
                runMemory(connection, schema, out, results);
            }
            if (selected.contains("modes")) {
                runModes(connection, schema, sizes, out, results);
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

    /** Latency with worker and producer in this JVM (two clients), as before --jvm fresh. */
    private void runLatency(DataSource ds, String schema, Backend backend, PrintWriter out, List<String> results)
            throws Exception {
        IdleLatency latency = new IdleLatency(ds, schema);
        if (backend != Backend.POSTGRESQL) {
            out.println("latency: no LISTEN/NOTIFY on " + backend.productName()
                    + ": a worker on another client learns of jobs by polling, measured below");
        }
        for (boolean notify : backend == Backend.POSTGRESQL ? new boolean[] {true, false} : new boolean[] {false}) {
            // Polling waits up to a poll interval (1 s) per job: fewer samples tell enough.
            int samples = notify ? latencySamples : Math.min(latencySamples, POLLING_LATENCY_SAMPLES);
            out.printf("latency (%s): %d jobs, one at a time, 20 ms apart...%n", notify ? "LISTEN/NOTIFY"
                    : backend == Backend.POSTGRESQL ? "polling only, as behind PgBouncer" : "polling", samples);
            out.flush();
            IdleLatency.Percentiles p = latency.run(samples, Duration.ofMillis(20), notify);
            results.add(String.format(Locale.ROOT, "RESULT workload=latency wakeup=%s samples=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f",
                    notify ? "notify" : "poll", samples, p.p50(), p.p99(), p.max()));
        }
    }

    /**
     * Pickup latency with the worker in a fresh JVM of its own ({@link PickupLatency}): the raw
     * LISTEN/NOTIFY ceiling, then Skipjack with the producer in another process and in the same
     * process (and polling), alternated {@code --runs} times; medians of each mode's percentiles.
     */
    /**
     * Jobs a pickup mode enqueues: fewer where the worker polls (the poll mode, and another
     * process's jobs without LISTEN/NOTIFY), since each waits up to a poll interval (1 s).
     */
    private int pickupSamples(PickupLatency.Mode mode, Backend backend) {
        boolean polls = mode == PickupLatency.Mode.POLL
                || (mode == PickupLatency.Mode.OTHER_PROCESS && backend != Backend.POSTGRESQL);
        return polls ? Math.min(latencySamples, POLLING_LATENCY_SAMPLES) : latencySamples;
    }

    private void runFreshLatency(DatabaseConnection connection, DataSource ds, String schema, Backend backend,
                                 PrintWriter out, List<String> results) throws Exception {
        DatabaseUrl url = connection.url();
        PickupLatency latency = new PickupLatency(ds, new BenchTable(ds, Skipjack.builder(ds).schema(schema).build()),
                url.jdbcUrl(), url.user(), url.password(), schema);
        List<PickupLatency.Mode> modes = PickupLatency.modesFor(backend);
        if (backend != Backend.POSTGRESQL) {
            out.println("latency: no LISTEN/NOTIFY on " + backend.productName() + ": a worker learns of another"
                    + " process's jobs by polling, and of its own client's at once; no raw LISTEN/NOTIFY ceiling");
        }
        Map<PickupLatency.Mode, double[][]> p = new java.util.EnumMap<>(PickupLatency.Mode.class);
        for (int r = 0; r < runs; r++) {
            for (PickupLatency.Mode mode : modes) {
                int samples = pickupSamples(mode, backend);
                IdleLatency.Percentiles got = latency.run(mode, samples, Duration.ofMillis(20));
                double[][] m = p.computeIfAbsent(mode, k -> new double[3][runs]);
                m[0][r] = got.p50();
                m[1][r] = got.p99();
                m[2][r] = got.max();
                out.printf(Locale.ROOT, "latency round %d/%d, %s: %d jobs, p50 %.2f ms, p99 %.2f ms, max %.2f ms%n", r + 1,
                        runs, mode.name().toLowerCase(Locale.ROOT).replace('_', '-'), samples, got.p50(), got.p99(), got.max());
                out.flush();
            }
        }
        out.printf(Locale.ROOT, "enqueue latency: %d jobs, one enqueue() each, in a fresh JVM...%n", latencySamples);
        out.flush();
        results.add("RESULT workload=enqueue_latency jvm=fresh " + new FreshRounds(new BenchTable(ds, Skipjack.builder(ds)
                .schema(schema).build()), url.jdbcUrl(), url.user(), url.password(), schema, jvmFlagList())
                .enqueueLatency(latencySamples));
        double[][] ceiling = p.get(PickupLatency.Mode.CEILING);
        for (PickupLatency.Mode mode : modes) {
            if (mode == PickupLatency.Mode.CEILING) {
                continue;
            }
            double[][] m = p.get(mode);
            String wakeup = mode == PickupLatency.Mode.POLL || backend != Backend.POSTGRESQL ? "poll" : "notify";
            if (mode == PickupLatency.Mode.SAME_PROCESS) {
                wakeup = "in-process";
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "RESULT workload=latency wakeup=%s producer=%s jvm=fresh runs=%d samples=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f",
                    wakeup, mode == PickupLatency.Mode.SAME_PROCESS ? "same-process" : "other-process", runs,
                    pickupSamples(mode, backend),
                    Median.of(m[0]), Median.of(m[1]), Median.of(m[2])));
            if (ceiling != null && mode != PickupLatency.Mode.POLL) {
                line.append(String.format(Locale.ROOT, " ceiling_p50_ms=%.2f ceiling_p99_ms=%.2f ratio_p50=%.2f",
                        Median.of(ceiling[0]), Median.of(ceiling[1]), Median.of(m[0]) / Median.of(ceiling[0])));
            }
            results.add(line.toString());
        }
    }

    private void runBurst(DataSource ds, String schema, PrintWriter out, List<String> results) throws Exception {
        out.printf(Locale.ROOT, "burst: %,d jobs enqueued at once while a worker of concurrency %d drains them;"
                + " probes, heap and the dashboard sampled every second...%n", burstJobs, concurrency);
        out.flush();
        BurstWorkload.Result r = new BurstWorkload(ds, schema).run(burstJobs, concurrency, out);
        results.add(String.format(Locale.ROOT, "RESULT workload=burst jobs=%d concurrency=%d enqueue_per_s=%.0f drain_s=%.1f"
                        + " held_max=%d heap_idle_mb=%.1f heap_max_mb=%.1f probe_idle_p50_ms=%.2f probe_burst_p50_ms=%.2f"
                        + " probe_burst_p99_ms=%.2f dashboard_idle_p50_ms=%.1f dashboard_burst_p50_ms=%.1f"
                        + " dashboard_burst_p99_ms=%.1f dashboard_burst_max_ms=%.1f",
                r.jobs(), concurrency, r.enqueuePerSecond(), r.drainSeconds(), r.heldMax(), r.heapIdleMb(), r.heapMaxMb(),
                r.probeIdleP50(), r.probeBurstP50(), r.probeBurstP99(), r.dashboardIdleP50(), r.dashboardBurstP50(),
                r.dashboardBurstP99(), r.dashboardBurstMax()));
    }

    private void runCeilingAndDrain(DataSource ds, String schema, int jobs, boolean drain, PrintWriter out,
                                    List<String> results) throws Exception {
        Skipjack tableOwner = Skipjack.builder(ds).schema(schema).build();
        RawCeiling ceiling = new RawCeiling(new dev.skipjack.lab.bench.BenchTable(ds, tableOwner));
        SkipjackDrain skipjackDrain = new SkipjackDrain(ds, schema);
        // One unreported round of each first, so both are measured warm (see WARM_UP_MIN_JOBS).
        int warmUp = RawCeiling.warmUpJobs(jobs);
        ceiling.run(warmUp, SkipjackDrain.QUEUE, SkipjackDrain.KIND);
        if (drain) {
            skipjackDrain.run(warmUp, concurrency);
        }
        double[] ceilEnq = new double[runs];
        double[] ceilProc = new double[runs];
        double[] sjEnq = new double[runs];
        double[] sjProc = new double[runs];
        for (int r = 0; r < runs; r++) {
            ceiling.run(RawCeiling.roundWarmUpJobs(jobs), SkipjackDrain.QUEUE, SkipjackDrain.KIND);
            RawCeiling.Rates c = ceiling.run(jobs, SkipjackDrain.QUEUE, SkipjackDrain.KIND);
            ceilEnq[r] = c.enqueuePerSecond();
            ceilProc[r] = c.processPerSecond();
            out.printf(Locale.ROOT, "round %d/%d, N=%,d: ceiling enqueue %,.0f/s process %,.0f/s", r + 1, runs, jobs,
                    c.enqueuePerSecond(), c.processPerSecond());
            if (drain) {
                skipjackDrain.run(RawCeiling.roundWarmUpJobs(jobs), concurrency);
                RawCeiling.Rates s = skipjackDrain.run(jobs, concurrency);
                sjEnq[r] = s.enqueuePerSecond();
                sjProc[r] = s.processPerSecond();
                out.printf(Locale.ROOT, "; skipjack enqueue %,.0f/s process %,.0f/s", s.enqueuePerSecond(), s.processPerSecond());
            }
            out.println();
            out.flush();
        }
        double ceilingEnqueue = Median.of(ceilEnq);
        double ceilingProcess = Median.of(ceilProc);
        results.add(String.format(Locale.ROOT, "RESULT workload=ceiling jobs=%d threads=%d batch=%d runs=%d enqueue_per_s=%.0f process_per_s=%.0f",
                jobs, RawCeiling.THREADS, RawCeiling.CLAIM_BATCH, runs, ceilingEnqueue, ceilingProcess));
        if (drain) {
            double enqueue = Median.of(sjEnq);
            double process = Median.of(sjProc);
            results.add(drainResult(jobs, "warm", enqueue, ceilingEnqueue, process, ceilingProcess));
        }
    }

    /**
     * Ceiling and drain with every phase in a new JVM ({@link FreshRounds}): the ceiling measured
     * as an outsider would, and Skipjack with the warm-up a user's first minute pays.
     */
    private void runFreshCeilingAndDrain(DatabaseConnection connection, DataSource ds, String schema, int jobs,
                                         boolean drain, PrintWriter out, List<String> results) throws Exception {
        DatabaseUrl url = connection.url();
        BenchTable table = new BenchTable(ds, Skipjack.builder(ds).schema(schema).build());
        FreshRounds.Result r = new FreshRounds(table, url.jdbcUrl(), url.user(), url.password(), schema, jvmFlagList())
                .run(jobs, concurrency, runs, drain, out);
        FreshRounds.Side ceiling = r.ceiling();
        results.add(String.format(Locale.ROOT, "RESULT workload=ceiling jobs=%d threads=%d batch=%d runs=%d jvm=fresh pool=%d"
                        + " enqueue_per_s=%.0f process_per_s=%.0f enqueue_cpu_us_per_job=%.1f process_cpu_us_per_job=%.1f %s %s",
                jobs, RawCeiling.THREADS, RawCeiling.CLAIM_BATCH, runs, FreshJvm.POOL_SIZE, ceiling.enqueue().perSecond(),
                ceiling.drain().perSecond(), ceiling.enqueue().cpuMicrosPerJob(), ceiling.drain().cpuMicrosPerJob(),
                ceiling.enqueue().windowFields("enqueue"), ceiling.drain().windowFields("process")));
        if (drain) {
            FreshRounds.Side skipjack = r.skipjack();
            results.add(drainResult(jobs, "fresh", skipjack.enqueue().perSecond(), ceiling.enqueue().perSecond(),
                    skipjack.drain().perSecond(), ceiling.drain().perSecond())
                    + String.format(Locale.ROOT, " enqueue_cpu_us_per_job=%.1f ceiling_enqueue_cpu_us_per_job=%.1f"
                                    + " process_cpu_us_per_job=%.1f ceiling_process_cpu_us_per_job=%.1f %s %s %s %s",
                            skipjack.enqueue().cpuMicrosPerJob(), ceiling.enqueue().cpuMicrosPerJob(),
                            skipjack.drain().cpuMicrosPerJob(), ceiling.drain().cpuMicrosPerJob(),
                            skipjack.enqueue().windowFields("enqueue"), ceiling.enqueue().windowFields("ceiling_enqueue"),
                            skipjack.drain().windowFields("process"), ceiling.drain().windowFields("ceiling_process")));
        }
    }

    private List<String> jvmFlagList() {
        return jvmFlags.isBlank() ? List.of() : List.of(jvmFlags.trim().split("\\s+"));
    }

    private String drainResult(int jobs, String jvmKind, double enqueue, double ceilingEnqueue, double process,
                               double ceilingProcess) {
        return String.format(Locale.ROOT, "RESULT workload=drain jobs=%d concurrency=%d runs=%d jvm=%s"
                        + " enqueue_per_s=%.0f ceiling_enqueue_per_s=%.0f ratio_enqueue=%.2f"
                        + " process_per_s=%.0f ceiling_process_per_s=%.0f ratio_process=%.2f ratio_to_ceiling=%.2f",
                jobs, concurrency, runs, jvmKind, enqueue, ceilingEnqueue, enqueue / ceilingEnqueue, process, ceilingProcess,
                process / ceilingProcess, process / ceilingProcess);
    }

    /** Stream steps at rising offered rates until one is not sustained; returns the highest sustained rate. */
    private int runStream(DataSource ds, String schema, PrintWriter out, List<String> results) throws Exception {
        SteadyStream stream = new SteadyStream(ds, schema);
        SteadyStream.Step best = null;
        List<String> steps = new ArrayList<>();
        stream.warmUp(streamRates.get(0), Duration.ofSeconds(streamSeconds), concurrency);
        for (int rate : streamRates) {
            out.printf(Locale.ROOT, "stream: offering %,d jobs/s for %d s...%n", rate, streamSeconds);
            out.flush();
            SteadyStream.Step step = stream.runStep(rate, Duration.ofSeconds(streamSeconds), concurrency);
            out.printf(Locale.ROOT, "stream %,d/s: enqueued %,.0f/s, depth %,d -> %,d (max %,d), p50 %.2f ms, p99 %.2f ms: %s%n",
                    rate, step.enqueuedPerSecond(), step.depthSecondQuarter(), step.depthLastQuarter(), step.depthMax(),
                    step.p50Ms(), step.p99Ms(), step.verdict());
            out.flush();
            steps.add(rate + ":" + step.verdict());
            if (!step.sustained()) {
                break;
            }
            best = step;
        }
        results.add(String.format(Locale.ROOT, "RESULT workload=stream step_seconds=%d concurrency=%d max_sustained_per_s=%d p50_ms=%s p99_ms=%s steps=%s",
                streamSeconds, concurrency, best == null ? 0 : best.offeredPerSecond(),
                best == null ? "none" : String.format(Locale.ROOT, "%.2f", best.p50Ms()),
                best == null ? "none" : String.format(Locale.ROOT, "%.2f", best.p99Ms()), String.join(",", steps)));
        return best == null ? 0 : best.offeredPerSecond();
    }

    private void runSoak(DataSource ds, String schema, int rate, PrintWriter out, List<String> results) throws Exception {
        out.printf(Locale.ROOT, "soak: %,d jobs/s for %d min, finished jobs kept %d s and pruned every %d s...%n",
                rate, soakMinutes, Soak.RETENTION.toSeconds(), Soak.PRUNE_INTERVAL.toSeconds());
        out.flush();
        Soak.Result r = new Soak(ds, schema).run(rate, Duration.ofMinutes(soakMinutes), concurrency, out);
        results.add(String.format(Locale.ROOT, "RESULT workload=soak minutes=%d rate_per_s=%d jobs=%d retention_s=%d"
                        + " dead_tuples_start=%d dead_tuples_end=%d dead_tuples_peak_first_third=%d dead_tuples_peak_last_third=%d"
                        + " table_bytes_start=%d table_bytes_end=%d index_bytes_start=%d index_bytes_end=%d"
                        + " live_rows_end=%d vacuums=%d depth_max=%d verdict=%s",
                soakMinutes, rate, r.enqueued(), Soak.RETENTION.toSeconds(),
                r.start().deadTuples(), r.end().deadTuples(), r.deadPeakFirstThird(), r.deadPeakLastThird(),
                r.start().tableBytes(), r.end().tableBytes(), r.start().indexBytes(), r.end().indexBytes(),
                r.end().liveTuples(), r.end().vacuums() - r.start().vacuums(), r.depthMax(), r.flat() ? "flat" : "grew"));
    }

    private void runDepth(DataSource ds, String schema, int jobs, PrintWriter out, List<String> results) throws Exception {
        out.printf(Locale.ROOT, "depth: drain of %,d jobs, concurrency %d, on tables of %s terminal rows...%n", jobs,
                concurrency, depths);
        out.flush();
        String jobsTable = Skipjack.builder(ds).schema(schema).build().jobsTable();
        DepthWorkload.Result r = new DepthWorkload(ds, schema, jobsTable).run(depths, jobs, concurrency, runs, latencySamples, out);
        results.add(r.line());
        List<String> sizes = r.depths().stream().map(BenchPlot::rowsLabel).toList();
        String subtitle = machineAndLoad() + "; drain of " + jobs + " jobs, concurrency " + concurrency + ", median of " + runs;
        writePlot(new BenchPlot("Drain throughput against table size (terminal rows kept)", subtitle,
                "terminal rows in the jobs table", "jobs/s", sizes)
                .line("Skipjack (default configuration)", r.drainPerSecond())
                .line("raw SQL ceiling (claim 100, 8 threads)", r.ceilingPerSecond()), "depth-throughput.png", out);
        writePlot(new BenchPlot("Pickup latency against table size (idle worker, NOTIFY)", machineAndLoad() + "; "
                + latencySamples + " jobs one at a time, 20 ms apart", "terminal rows in the jobs table", "ms", sizes)
                .line("p50", r.pickupP50Ms()).line("p99", r.pickupP99Ms()), "depth-pickup.png", out);
    }

    /** {@link #machine} and the load average now: a plot's subtitle, written when its workload ends. */
    private String machineAndLoad() {
        return String.format(Locale.ROOT, "%s; load %.1f", machine,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private void writePlot(BenchPlot plot, String file, PrintWriter out) throws IOException {
        out.println("Plot written: " + plot.write(plots.resolve(file)));
        out.flush();
    }

    private void runMemory(DatabaseConnection connection, String schema, PrintWriter out, List<String> results)
            throws Exception {
        out.printf(Locale.ROOT, "memory: one worker JVM (no JVM flags, default configuration, one queue of %d),"
                + " idle, then with %s jobs running...%n", MemoryWorkload.CONCURRENCY, MemoryWorkload.RUNNING);
        out.flush();
        DatabaseUrl url = connection.url();
        results.add(new MemoryWorkload(connection.dataSource(), url.jdbcUrl(), url.user(), url.password(), schema).run(out));
    }

    private void runScale(DatabaseConnection connection, String schema, int jobs, PrintWriter out, List<String> results)
            throws Exception {
        out.printf(Locale.ROOT, "scale: drain of %,d jobs at concurrency %s in one process, then %d worker JVMs x %d...%n",
                jobs, ScaleWorkload.CONCURRENCIES, ScaleWorkload.PROCESSES, ScaleWorkload.PROCESS_CONCURRENCY);
        out.flush();
        DataSource ds = connection.dataSource();
        String jobsTable = Skipjack.builder(ds).schema(schema).build().jobsTable();
        DatabaseUrl url = connection.url();
        ScaleWorkload.Result r = new ScaleWorkload(ds, url.jdbcUrl(), url.user(), url.password(), schema, jobsTable)
                .run(jobs, runs, latencySamples, out);
        results.add(r.line());
        List<String> levels = new ArrayList<>();
        ScaleWorkload.CONCURRENCIES.forEach(c -> levels.add(Integer.toString(c)));
        levels.add(ScaleWorkload.PROCESSES + " JVMs x " + ScaleWorkload.PROCESS_CONCURRENCY);
        double[] ceiling = new double[levels.size()];
        Arrays.fill(ceiling, r.ceilingPerSecond());
        writePlot(new BenchPlot("Drain throughput against worker concurrency", machineAndLoad() + "; drain of " + jobs
                + " jobs, median of " + runs, "worker concurrency (one process, then 4 worker JVMs)", "jobs/s", levels)
                .line("Skipjack (default configuration)", r.drainPerSecond())
                .line("raw SQL ceiling (claim 100, 8 threads)", ceiling), "scale-throughput.png", out);
    }

    private void runShards(DatabaseConnection connection, int jobs, PrintWriter out, List<String> results) throws Exception {
        DatabaseUrl url = connection.url();
        if (url.isSqlite()) {
            out.println("Skipping shards on SQLite: its shards would be files, not databases of one server");
            return;
        }
        shardCounts.forEach(n -> requirePositive("--shard-counts", n));
        out.printf(Locale.ROOT, "shards: drain of %,d jobs through a ShardedSkipjack over %s databases of this server,"
                + " concurrency %d per shard...%n", jobs, shardCounts, concurrency);
        out.flush();
        results.addAll(new ShardsWorkload(connection.dataSource(),
                shard -> url.jdbcUrl().replaceFirst("^(jdbc:[a-z]+://[^/]+/)[^?]*", "$1" + ShardsWorkload.databaseName(shard)),
                url.user(), url.password()).run(shardCounts, jobs, concurrency, runs, out));
    }

    /**
     * Issue 15, item 4: each execution mode's drain as a ratio to lease mode's, interleaved
     * (ModesWorkload), on a pool of its own: the bench's is smaller than a node that holds a
     * connection per running job (transactional modes, lease_insert) uses at once.
     */
    private void runModes(DatabaseConnection connection, String schema, List<Integer> sizes, PrintWriter out,
                          List<String> results) throws Exception {
        int poolSize = ModesWorkload.poolSize(concurrency);
        out.printf(Locale.ROOT, "modes: on a pool of its own, %d connections (%d jobs, %d for the node, 1 for the bench)%n",
                poolSize, concurrency, poolSize - concurrency - 1);
        try (DatabaseConnection pool = DatabaseConnection.open(Optional.of(connection.url()), poolSize, out)) {
            ModesWorkload modes = new ModesWorkload(pool.dataSource(), schema);
            for (int n : sizes) {
                out.printf(Locale.ROOT, "modes: drain of %,d jobs in each execution mode, concurrency %d, interleaved...%n",
                        n, concurrency);
                out.flush();
                results.add(modes.run(n, concurrency, runs, out));
            }
        }
    }

    private static String serverVersion(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            return meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
        }
    }

    private void requirePositive(String option, int value) {
        if (value < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " must be at least 1, got " + value);
        }
    }
}
