package dev.skipjack.cli;

import dev.skipjack.Backend;
import dev.skipjack.JobRequest;
import dev.skipjack.JobState;
import dev.skipjack.Skipjack;
import dev.skipjack.cli.demo.DemoBank;
import dev.skipjack.cli.demo.DemoJobsTable;
import dev.skipjack.cli.demo.DemoWorkload;
import dev.skipjack.cli.demo.ProgressLine;
import dev.skipjack.cli.demo.features.FeatureCheck;
import dev.skipjack.cli.demo.features.FeatureChecks;
import dev.skipjack.cli.demo.features.FeatureContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

/**
 * {@code skipjack demo}: enqueues a realistic mix of jobs, runs them with live progress, and
 * checks afterwards that every job finished and that transactional transfers kept the books
 * balanced. Exits non-zero when a check fails.
 *
 * <p>{@code skipjack demo --features} runs the feature checks of {@link FeatureChecks} instead (unique
 * jobs, cron, concurrency limits, ordered keys, workflows), each judged from what the database holds, and ends with one
 * machine-readable RESULT line.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Runs a realistic mix of jobs and checks that each one ended as it should.",
                "Emails, image resizes, card charges and balance transfers; some fail on purpose.",
                "Uses schema 'skipjack_demo' (or --schema) and empties its jobs table first.",
                "Without --url or SKIPJACK_DATABASE_URL, runs on an embedded PostgreSQL,",
                "or with --backend sqlite on a SQLite file in the temporary directory.",
                "With --features: checks unique jobs, cron, concurrency limits, ordered keys and workflows instead",
                "(schema 'skipjack_demo_features') and ends with a line such as:",
                "RESULT workload=features unique=ok cron=ok limits=ok ordered=ok workflows=ok"})
public final class DemoCommand implements Callable<Integer> {

    private static final String DEFAULT_SCHEMA = "skipjack_demo";
    private static final int ENQUEUE_BATCH = 5_000;
    private static final Duration PROGRESS_INTERVAL = Duration.ofMillis(500);
    /** Connections beyond the job slots: fetchers, completer, heartbeat, maintenance and progress. */
    private static final int POOL_HEADROOM = 8;
    private static final String FEATURES_SCHEMA = "skipjack_demo_features";
    /**
     * --features: the unique check's threads enqueueing at once, plus the fetchers, completers and
     * cron rounds of the clients the checks start side by side.
     */
    private static final int FEATURES_POOL_SIZE = 40;
    /** --features: the longest one check waits for the database to reach a state. */
    private static final Duration FEATURES_WAIT = Duration.ofSeconds(20);

    /** The checks {@code --features} runs; a test gives its own. */
    private final java.util.function.Supplier<List<FeatureCheck>> featureChecks;

    public DemoCommand() {
        this(FeatureChecks::registry);
    }

    /** A demo whose {@code --features} runs these checks instead of {@link FeatureChecks#registry()}. */
    DemoCommand(java.util.function.Supplier<List<FeatureCheck>> featureChecks) {
        this.featureChecks = featureChecks;
    }

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private DatabaseOptions database;

    @Option(names = "--backend", defaultValue = "postgres", paramLabel = "postgres|sqlite",
            description = "Without --url: postgres (an embedded PostgreSQL, the default) or sqlite (a new SQLite"
                    + " file, deleted afterwards; nothing to install). Ignored with --url.")
    private String backend;

    @Option(names = "--jobs", defaultValue = "50000", paramLabel = "N", description = "Jobs to run (default: ${DEFAULT-VALUE}).")
    private int jobs;

    @Option(names = "--concurrency", defaultValue = "16", paramLabel = "N",
            description = "Jobs of the default queue running at once (default: ${DEFAULT-VALUE});"
                    + " the critical queue gets a quarter of that.")
    private int concurrency;

    @Option(names = "--timeout", defaultValue = "300", paramLabel = "SECONDS",
            description = "Stop waiting for jobs to finish after this long (default: ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    @Option(names = "--features",
            description = "Check the features instead (unique jobs, cron, concurrency limits, ordered keys, workflows),"
                    + " each from what the database"
                    + " holds; ends with one RESULT line naming each check ok or fail. --jobs, --concurrency and"
                    + " --timeout do not apply.")
    private boolean features;

    @Override
    public Integer call() throws SQLException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        if (features) {
            return runFeatures(out);
        }
        requirePositive("--jobs", jobs);
        requirePositive("--concurrency", concurrency);
        requirePositive("--timeout", timeoutSeconds);
        int criticalConcurrency = Math.max(1, concurrency / 4);
        int poolSize = concurrency + criticalConcurrency + POOL_HEADROOM;
        try (DatabaseConnection connection = database.url().isPresent() ? DatabaseConnection.open(database.url(), poolSize, out)
                : DatabaseConnection.openEmbedded(backend, poolSize, out)) {
            return run(connection.dataSource(), database.schemaFor(connection.url(), DEFAULT_SCHEMA),
                    connection.url().backend(), criticalConcurrency, out);
        }
    }

    private int run(DataSource dataSource, String schema, Backend backend, int criticalConcurrency, PrintWriter out)
            throws SQLException, InterruptedException {
        // schema() validates the name, so the demo tables below can put it into their SQL.
        Skipjack.Builder builder = Skipjack.builder(dataSource)
                .schema(schema)
                .queue(DemoWorkload.DEFAULT_QUEUE, concurrency)
                .queue(DemoWorkload.CRITICAL_QUEUE, criticalConcurrency)
                // Delayed and retried jobs become due every few hundred milliseconds: pick them up promptly.
                .promoteInterval(Duration.ofMillis(100))
                .pollInterval(Duration.ofMillis(100));
        DemoBank bank = new DemoBank(dataSource, schema, backend);
        Skipjack skipjack = DemoWorkload.registerHandlers(builder, bank).build();
        DemoJobsTable jobsTable = new DemoJobsTable(dataSource, schema, skipjack.jobsTable());

        skipjack.migrate();
        long leftOver = jobsTable.emptyForNewRun(DemoWorkload.KINDS);
        if (leftOver > 0) {
            out.printf(Locale.ROOT, "Emptied %s: removed %,d jobs of an earlier demo run%n", jobsTable.name(), leftOver);
        }
        bank.openAccounts();
        long balanceBefore = bank.totalBalance();

        long enqueueStart = System.nanoTime();
        List<JobRequest> plan = DemoWorkload.plan(jobs);
        for (int from = 0; from < plan.size(); from += ENQUEUE_BATCH) {
            skipjack.enqueueAll(plan.subList(from, Math.min(plan.size(), from + ENQUEUE_BATCH)));
        }
        double enqueueSeconds = (System.nanoTime() - enqueueStart) / 1e9;
        out.printf(Locale.ROOT, "Enqueued %,d jobs in %.1f s (%,.0f jobs/s); running them with %d + %d workers...%n",
                jobs, enqueueSeconds, jobs / enqueueSeconds, concurrency, criticalConcurrency);
        out.flush();

        long runStart = System.nanoTime();
        Map<JobState, Long> finalCounts;
        skipjack.start();
        try {
            finalCounts = awaitAllTerminal(skipjack, out);
        } finally {
            skipjack.close();
        }
        double runSeconds = (System.nanoTime() - runStart) / 1e9;
        RunResult result = new RunResult(finalCounts, enqueueSeconds, runSeconds, balanceBefore, bank.totalBalance());
        return printSummary(out, schema, result, jobsTable, bank);
    }

    /**
     * {@code --features}: migrates the schema, removes an earlier run's jobs (refusing a schema that
     * holds other jobs), runs each check; exit code 0 when every check passed.
     */
    private int runFeatures(PrintWriter out) throws SQLException {
        List<FeatureCheck> checks = featureChecks.get();
        try (DatabaseConnection connection = database.url().isPresent()
                ? DatabaseConnection.open(database.url(), FEATURES_POOL_SIZE, out)
                : DatabaseConnection.openEmbedded(backend, FEATURES_POOL_SIZE, out)) {
            DataSource dataSource = connection.dataSource();
            String schema = database.schemaFor(connection.url(), FEATURES_SCHEMA);
            Backend backendUsed;
            try (Skipjack schemaOwner = Skipjack.builder(dataSource).schema(schema).build()) {
                schemaOwner.migrate();
                backendUsed = schemaOwner.backend();
                DemoJobsTable jobsTable = new DemoJobsTable(dataSource, schema, schemaOwner.jobsTable());
                long leftOver = jobsTable.emptyForNewRun(FeatureChecks.kinds(checks));
                long leftOverWorkflows = jobsTable.removeOrphanedWorkflows();
                if (leftOver > 0) {
                    out.printf(Locale.ROOT, "Emptied %s: removed %,d jobs and %,d workflows of an earlier run%n",
                            jobsTable.name(), leftOver, leftOverWorkflows);
                }
            }
            out.println("Feature checks (schema " + schema + ")");
            out.flush();
            String runToken = UUID.randomUUID().toString().substring(0, 8);
            boolean passed = FeatureChecks.run(checks,
                    new FeatureContext(dataSource, schema, backendUsed, out, runToken, FEATURES_WAIT));
            return passed ? ExitCode.OK : ExitCode.FAILURE;
        }
    }

    /** What a run measured, for the summary. */
    private record RunResult(Map<JobState, Long> finalCounts, double enqueueSeconds, double runSeconds,
                             long balanceBefore, long balanceAfter) {
    }

    /** Shows progress until every job is terminal or the timeout passes; returns the last counts. */
    private Map<JobState, Long> awaitAllTerminal(Skipjack skipjack, PrintWriter out) throws InterruptedException {
        ProgressLine progress = new ProgressLine(out, System.console() != null);
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        try {
            while (true) {
                Map<JobState, Long> counts = skipjack.countByState();
                progress.update(counts);
                if (ProgressLine.terminalCount(counts) >= jobs) {
                    return counts;
                }
                if (System.nanoTime() > deadline) {
                    progress.finish();
                    out.printf(Locale.ROOT, "Gave up waiting after %d s%n", timeoutSeconds);
                    return counts;
                }
                Thread.sleep(PROGRESS_INTERVAL.toMillis());
            }
        } finally {
            progress.finish();
        }
    }

    /** Prints what happened and the checks; returns the exit code: 0 when every check passed. */
    private int printSummary(PrintWriter out, String schema, RunResult result, DemoJobsTable jobsTable, DemoBank bank)
            throws SQLException {
        Map<JobState, Long> counts = result.finalCounts();
        long terminal = ProgressLine.terminalCount(counts);
        List<DemoJobsTable.KindStats> byKind = jobsTable.statsByKind();
        long retries = byKind.stream().mapToLong(DemoJobsTable.KindStats::retries).sum();

        out.println();
        out.println("Summary (schema " + schema + ")");
        out.printf(Locale.ROOT, "  jobs        %,d of %,d jobs terminal%n", terminal, jobs);
        StringBuilder states = new StringBuilder();
        counts.forEach((state, count) -> states.append(String.format(Locale.ROOT, "  %s %,d", state.dbValue(), count)));
        out.println("  states    " + states);
        out.printf(Locale.ROOT, "  time        %.1f s to enqueue, %.1f s to run%n", result.enqueueSeconds(),
                result.runSeconds());
        out.printf(Locale.ROOT, "  throughput  %,.0f jobs/s%n", terminal / result.runSeconds());
        out.printf(Locale.ROOT, "  retries     %,d (attempts after the first)%n", retries);
        out.printf(Locale.ROOT, "  discarded   %,d%n", counts.get(JobState.DISCARDED));
        out.println();
        out.printf(Locale.ROOT, "  %-14s %9s %10s %10s %10s %8s%n", "kind", "jobs", "completed", "discarded", "cancelled",
                "retries");
        for (DemoJobsTable.KindStats k : byKind) {
            out.printf(Locale.ROOT, "  %-14s %,9d %,10d %,10d %,10d %,8d%n", k.kind(), k.jobs(), k.completed(),
                    k.discarded(), k.cancelled(), k.retries());
        }

        out.println();
        out.println("Checks");
        boolean allPassed = check(out, terminal == jobs,
                String.format(Locale.ROOT, "every job reached a terminal state (%,d of %,d)", terminal, jobs));
        allPassed &= check(out, result.balanceBefore() == result.balanceAfter(), String.format(Locale.ROOT,
                "transfers kept the books balanced: accounts sum to %,d before and %,d after,"
                        + " though some transfers crashed after their debit", result.balanceBefore(), result.balanceAfter()));
        DemoBank.LedgerCheck ledger = bank.checkLedger(jobsTable.name());
        allPassed &= check(out, ledger.exactlyOnce(), String.format(Locale.ROOT,
                "each completed transfer was applied exactly once (%,d ledger entries for %,d jobs;"
                        + " %,d completed transfer jobs)",
                ledger.entries(), ledger.distinctJobs(), ledger.completedTransfers()));
        DemoJobsTable.DeclinedCards declined = jobsTable.declinedCards();
        allPassed &= check(out, declined.declined() == declined.discardedAfterAllAttempts(), String.format(Locale.ROOT,
                "declined cards were discarded after %d attempts (%,d of %,d)", DemoWorkload.CHARGE_MAX_ATTEMPTS,
                declined.discardedAfterAllAttempts(), declined.declined()));
        out.flush();
        return allPassed ? 0 : 1;
    }

    private static boolean check(PrintWriter out, boolean passed, String description) {
        out.println((passed ? "  [ok]     " : "  [FAILED] ") + description);
        return passed;
    }

    private void requirePositive(String option, int value) {
        if (value < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " must be at least 1, got " + value);
        }
    }
}
