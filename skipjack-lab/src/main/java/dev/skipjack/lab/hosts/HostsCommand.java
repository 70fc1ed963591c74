package dev.skipjack.lab.hosts;

import dev.skipjack.Backend;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;
import dev.skipjack.cli.CliException;
import dev.skipjack.cli.DatabaseConnection;
import dev.skipjack.cli.DatabaseOptions;
import dev.skipjack.cli.DatabaseUrl;
import dev.skipjack.internal.sql.TableNames;
// The execution audit and the audited worker JVM, shared with the fault tests and chaos.
import dev.skipjack.audit.AuditChecker;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.AuditTables;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerOptions;
import dev.skipjack.audit.process.WorkerProcesses;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * {@code skipjack-lab hosts}: Skipjack's workers on separate hosts, simulated honestly on one
 * machine (issue 16, items 1 and 2). Each host is a network namespace with one worker JVM
 * (Skipjack's default lease and intervals) that reaches the database over a bridge
 * ({@link HostNetwork}); the driver in the root namespace enqueues. For each host count it runs
 * the drain workload (N jobs enqueued at once, timed until all are done) and the stream workload
 * (a fixed offered rate for {@code --minutes}), measuring the database's CPU, its lock waits and
 * each host's connections, then lets the independent audit checker judge every job. With
 * {@code --cut-host-after}, the last host's link is cut mid-stream and restored after
 * {@code --cut-for}: its jobs must come back on the other hosts within the lease bound, a
 * completion it sends after losing them must not count, and it must rejoin by itself.
 */
@Command(name = "hosts", mixinStandardHelpOptions = true,
        description = {"Runs worker JVMs on separate simulated hosts (one Linux network namespace each, linked to the",
                "database by a bridge) and reports throughput, connections per host and the database's load for",
                "each host count; with --cut-host-after, cuts one host's link mid-run and checks its jobs come back.",
                "Needs root, iproute2 (ip netns) and socat. Addresses: 10.213.7.0/24, inside its namespaces only.",
                "Uses schema 'skipjack_hosts' (or --schema), which it DROPS and recreates for each host count.",
                "PostgreSQL only. Without --url or SKIPJACK_DATABASE_URL, runs on an embedded PostgreSQL.",
                "Removes every namespace, interface and process it made when it ends, also on Ctrl-C; after a",
                "kill -9, 'hosts --cleanup' (or the next run) removes the leftovers."})
public final class HostsCommand implements Callable<Integer> {

    private static final String DEFAULT_SCHEMA = "skipjack_hosts";
    private static final String KIND = "hosts";
    private static final String APPLICATION_PREFIX = "skipjack-hosts-h";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private DatabaseOptions database;

    @Option(names = "--hosts", split = ",", defaultValue = "1", paramLabel = "N",
            description = "Host counts to run, one after another, e.g. 1,2,4,8 (default: ${DEFAULT-VALUE}).")
    private List<Integer> hostCounts;

    @Option(names = "--minutes", defaultValue = "1", paramLabel = "M",
            description = "How long the stream workload runs for each host count (default: ${DEFAULT-VALUE}).")
    private double minutes;

    @Option(names = "--drain-jobs", defaultValue = "20000", paramLabel = "N",
            description = "Jobs the drain workload enqueues at once (default: ${DEFAULT-VALUE}; 0: no drain).")
    private int drainJobs;

    @Option(names = "--warmup-jobs", defaultValue = "3000", paramLabel = "N",
            description = "Jobs run before anything is measured, so the worker JVMs' compilers have done their work"
                    + " (default: ${DEFAULT-VALUE}).")
    private int warmupJobs;

    @Option(names = "--rate", defaultValue = "500", paramLabel = "JOBS_PER_S",
            description = "The stream's offered rate, for all hosts together (default: ${DEFAULT-VALUE}).")
    private int rate;

    @Option(names = "--concurrency", defaultValue = "8", paramLabel = "N",
            description = "Jobs at once per host (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--batch", defaultValue = "20", paramLabel = "N",
            description = "Jobs a host claims per statement (default: ${DEFAULT-VALUE}).")
    private int batch;

    @Option(names = "--cut-host-after", defaultValue = "0", paramLabel = "SECONDS",
            description = "Cut the last host's link this long into the stream (default: no cut; needs 2 hosts or more).")
    private double cutAfterSeconds;

    @Option(names = "--cut-for", defaultValue = "40", paramLabel = "SECONDS",
            description = "How long the link stays cut; longer than the lease, so its jobs must be rescued"
                    + " (default: ${DEFAULT-VALUE}).")
    private double cutForSeconds;

    @Option(names = "--job-millis", defaultValue = "0", paramLabel = "MS",
            description = "How long each job's handler takes besides its audit write (default: ${DEFAULT-VALUE});"
                    + " longer jobs leave a cut host holding more of them.")
    private int jobMillis;

    @Option(names = "--lease-seconds", defaultValue = "0", paramLabel = "SECONDS",
            description = "The workers' lease (default: Skipjack's, 15 s); a shorter one makes a short cut-off run.")
    private int leaseSeconds;

    @Option(names = "--cut-leader",
            description = "Cut the host that holds the maintenance leadership (the lease rescuer) instead of the last one:"
                    + " its jobs then wait for another host to take the leadership too.")
    private boolean cutLeader;

    @Option(names = "--cleanup", description = "Only remove what an earlier run left behind (after a kill -9), and exit.")
    private boolean cleanupOnly;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Optional<String> unavailable = HostNetwork.unavailable();
        if (unavailable.isPresent()) {
            throw new CliException("hosts cannot run here: " + unavailable.get());
        }
        if (cleanupOnly) {
            try (FileLock lock = HostNetwork.lock()) {
                List<String> removed = HostNetwork.cleanup();
                out.println(removed.isEmpty() ? "hosts: nothing to clean up" : "hosts: removed " + String.join(", ", removed));
            } catch (IllegalStateException busy) {
                throw new CliException(busy.getMessage());
            }
            return 0;
        }
        validate();
        FileLock lock;
        try {
            lock = HostNetwork.lock();
        } catch (IllegalStateException busy) {
            throw new CliException(busy.getMessage());
        }
        int maxHosts = hostCounts.stream().mapToInt(Integer::intValue).max().orElseThrow();
        // Ctrl-C (SIGINT, SIGTERM) runs this; kill -9 runs nothing, hence --cleanup.
        Thread cleanupHook = new Thread(HostNetwork::cleanup, "hosts-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanupHook);
        Path logDir = Files.createTempDirectory("skipjack-hosts-");
        boolean ok = true;
        try (lock; HostNetwork network = HostNetwork.create(maxHosts)) {
            out.printf(Locale.ROOT, "hosts: %d host namespaces on a bridge; the database at %s:%d%n", maxHosts,
                    HostNetwork.DATABASE_ADDRESS, HostNetwork.DATABASE_PORT);
            out.flush();
            if (database.url().isPresent()) {
                DatabaseUrl url = database.url().get();
                if (url.backend() != Backend.POSTGRESQL) {
                    throw new CliException("hosts runs on PostgreSQL only (its load figures read pg_stat_activity"
                            + " and pg_locks), not " + url.displayName());
                }
                URI target = URI.create(url.jdbcUrl().substring("jdbc:".length()));
                if (target.getHost() == null) {
                    throw new CliException("hosts needs one host:port in the URL " + url.displayName());
                }
                network.listen(network.forwardToTcp(target.getHost(), target.getPort() > 0 ? target.getPort() : 5432));
                try (DatabaseConnection connection = DatabaseConnection.open(Optional.of(url), 8, out)) {
                    ok = runAll(network, connection, null, logDir, out);
                }
            } else {
                out.println("Starting an embedded PostgreSQL...");
                out.flush();
                try (EmbeddedServer server = EmbeddedServer.start();
                     DatabaseConnection connection = DatabaseConnection.open(
                             Optional.of(DatabaseUrl.parse(server.jdbcUrl())), 8, out)) {
                    network.listen(server.socket());
                    long postmaster = server.postmasterPid();
                    ok = runAll(network, connection, () -> DatabaseLoad.treeTicks(postmaster), logDir, out);
                }
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanupHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or ran
            }
        }
        out.println("worker logs: " + logDir);
        out.flush();
        return ok ? 0 : 1;
    }

    private void validate() {
        if (hostCounts.isEmpty() || hostCounts.stream().anyMatch(n -> n < 1 || n > 64)) {
            throw new CliException("--hosts takes host counts from 1 to 64, e.g. 1,2,4,8, not " + hostCounts);
        }
        if (!(minutes > 0) || drainJobs < 0 || warmupJobs < 0 || rate < 1 || concurrency < 1 || batch < 1) {
            throw new CliException("--minutes, --rate, --concurrency and --batch must be positive, --drain-jobs and --warmup-jobs"
                    + " not negative");
        }
        if (leaseSeconds < 0 || jobMillis < 0) {
            throw new CliException("--lease-seconds and --job-millis must not be negative");
        }
        if (cutAfterSeconds < 0 || !(cutForSeconds > 0)) {
            throw new CliException("--cut-host-after must not be negative and --cut-for must be positive");
        }
        if (cutAfterSeconds > 0 && hostCounts.stream().anyMatch(n -> n < 2)) {
            throw new CliException("--cut-host-after needs at least 2 hosts in every run of --hosts: the cut host's"
                    + " jobs must have somewhere to go");
        }
    }

    private boolean runAll(HostNetwork network, DatabaseConnection connection, LongSupplier databaseTicks,
                           Path logDir, PrintWriter out) throws Exception {
        boolean ok = true;
        List<String> results = new ArrayList<>();
        for (int hosts : hostCounts) {
            try (WorkerProcesses workers = new WorkerProcesses(logDir.resolve(hosts + "-hosts"), List.of("-Xmx256m"))) {
                String result = runOnce(hosts, network, connection, workers, databaseTicks, out);
                results.add(result);
                ok &= result.endsWith("verdict=ok");
            }
        }
        if (results.size() > 1) {
            out.println("all runs:");
            results.forEach(out::println);
        }
        return ok;
    }

    private String runOnce(int hosts, HostNetwork network, DatabaseConnection connection, WorkerProcesses workers,
                           LongSupplier databaseTicks, PrintWriter out) throws Exception {
        DataSource ds = connection.dataSource();
        String schema = database.schemaOr(DEFAULT_SCHEMA);
        TableNames names = new TableNames(schema, "skipjack_"); // validates before the DROP below
        Skipjack producer = Skipjack.builder(ds).schema(schema).kind(JobKind.of(KIND, AuditedWorker.Work.class)).build();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + names.quotedSchema() + " CASCADE");
        }
        producer.migrate();
        AuditTables audit = new AuditTables(Backend.POSTGRESQL, names);
        try (Connection c = ds.getConnection()) {
            audit.create(c);
        }
        HostsSql sql = new HostsSql(producer.jobsTable(), audit.executionsTable());
        out.printf(Locale.ROOT, "%n== %d host(s): %d jobs at once each, batches of %d; drain %d jobs, then a stream of %d"
                + " jobs/s for %.1f min%s%n", hosts, concurrency, batch, drainJobs, rate, minutes,
                cutAfterSeconds > 0 ? String.format(Locale.ROOT, "; %s cut %.0f s into the stream for %.0f s",
                        cutLeader ? "the maintenance leader's host" : "host " + hosts, cutAfterSeconds, cutForSeconds) : "");
        out.flush();

        DatabaseUrl url = connection.url();
        if (url.password() != null) {
            workers.environment(Map.of(AuditedWorker.PASSWORD_ENV, url.password()));
        }
        String workerUrl = url.jdbcUrl().replaceFirst("^jdbc:postgresql://[^/]*/",
                "jdbc:postgresql://" + HostNetwork.DATABASE_ADDRESS + ":" + HostNetwork.DATABASE_PORT + "/");
        List<Process> processes = new ArrayList<>();
        for (int i = 1; i <= hosts; i++) {
            WorkerOptions options = WorkerOptions.of(workerUrl, schema, "lease", workerId(i)).user(url.user())
                    .concurrency(concurrency).batch(batch).leaseMillis(leaseSeconds * 1000L).rescueMillis(0).pauseMillis(jobMillis)
                    .shutdownMillis(5_000).kind(KIND).applicationName(APPLICATION_PREFIX + i);
            try {
                processes.add(workers.start(options, network.wrapper(i)));
            } catch (IOException e) {
                throw new CliException("hosts: the worker JVM of host " + i + " " + e.getMessage());
            }
        }
        out.printf(Locale.ROOT, "  %d worker JVM(s) ready, one per host namespace%n", hosts);
        out.flush();
        LongSupplier forwarderTicks = () -> DatabaseLoad.ticksOf(network.listenerPids());
        LongSupplier workerTicks = () -> DatabaseLoad.ticksOf(network.hostPids());
        String pattern = APPLICATION_PREFIX + "%";

        long enqueued = 0;
        int n = 0;
        if (warmupJobs > 0) {
            List<JobRequest> requests = new ArrayList<>(warmupJobs);
            for (int i = 0; i < warmupJobs; i++) {
                requests.add(JobRequest.of(KIND, new AuditedWorker.Work(n++)));
            }
            enqueued += producer.enqueueAll(requests).size();
            awaitDone(ds, sql, TimeUnit.MINUTES.toNanos(5));
            out.printf(Locale.ROOT, "  warm-up: %d jobs done, not measured%n", warmupJobs);
            out.flush();
        }
        double drainPerSecond = 0;
        DatabaseLoad.Figures drain = null;
        if (drainJobs > 0) {
            List<JobRequest> requests = new ArrayList<>(drainJobs);
            for (int i = 0; i < drainJobs; i++) {
                requests.add(JobRequest.of(KIND, new AuditedWorker.Work(n++)));
            }
            DatabaseLoad load = new DatabaseLoad(ds, sql, pattern, databaseTicks, forwarderTicks, workerTicks);
            long start = System.nanoTime();
            enqueued += producer.enqueueAll(requests).size(); // one transaction: every job appears at once
            long enqueuedAt = System.nanoTime();
            awaitDone(ds, sql, TimeUnit.MINUTES.toNanos(10));
            long end = System.nanoTime();
            drain = load.stop();
            drainPerSecond = drainJobs / ((end - enqueuedAt) / 1e9);
            out.printf(Locale.ROOT, "  drain: %d jobs in %.2f s after a %.2f s enqueue: %.0f jobs/s; %s%n", drainJobs,
                    (end - enqueuedAt) / 1e9, (enqueuedAt - start) / 1e9, drainPerSecond, describe(drain));
            out.flush();
        }

        Cut cut = cutAfterSeconds > 0 ? new Cut(hosts) : null;
        long finishedBefore = progress(ds, sql)[0];
        DatabaseLoad load = new DatabaseLoad(ds, sql, pattern, databaseTicks, forwarderTicks, workerTicks);
        long streamStart = System.nanoTime();
        long streamEnd = streamStart + (long) (minutes * 60e9);
        long nextProgress = streamStart;
        long backlogMax = 0;
        long streamEnqueued = 0;
        while (System.nanoTime() < streamEnd || (cut != null && !cut.settled())) {
            List<JobRequest> tick = new ArrayList<>();
            for (int i = 0; i < Math.max(1, rate / 10); i++) {
                tick.add(JobRequest.of(KIND, new AuditedWorker.Work(n++)));
            }
            streamEnqueued += producer.enqueueAll(tick).size();
            long now = System.nanoTime();
            if (cut != null) {
                cut.step(now - streamStart, network, ds, sql, audit, out);
            }
            if (now > nextProgress) {
                backlogMax = Math.max(backlogMax, progress(ds, sql)[1]);
                nextProgress = now + TimeUnit.SECONDS.toNanos(1);
            }
            Thread.sleep(100); // the offered rate: a tenth of --rate every 100 ms
        }
        long finishedDuring = progress(ds, sql)[0] - finishedBefore;
        double streamSeconds = (System.nanoTime() - streamStart) / 1e9;
        DatabaseLoad.Figures stream = load.stop();
        enqueued += streamEnqueued;
        double streamPerSecond = finishedDuring / streamSeconds;
        // What the driver managed to offer: a tenth of --rate per 100 ms tick, less when its own
        // enqueue and sleep take longer than the tick on a busy machine.
        double offeredPerSecond = streamEnqueued / streamSeconds;
        out.printf(Locale.ROOT, "  stream: %d jobs offered over %.1f s (%.0f jobs/s of the %d asked), %.0f jobs/s done,"
                + " backlog at most %d; %s%n", streamEnqueued, streamSeconds, offeredPerSecond, rate, streamPerSecond,
                backlogMax, describe(stream));
        out.flush();

        awaitDone(ds, sql, TimeUnit.MINUTES.toNanos(3));
        for (Process p : processes) {
            p.destroy(); // SIGTERM: graceful
        }
        for (Process p : processes) {
            p.waitFor(30, TimeUnit.SECONDS);
        }
        AuditReport report;
        try (Connection c = ds.getConnection()) {
            report = AuditChecker.detect(ds, names).check(c, AuditChecker.Mode.LEASE, enqueued);
        }
        out.println("  " + report.summary());
        // The lease bound: a lease for the cut host's last extension to run out, and as long again
        // for the rescue and a claim elsewhere (30 s with Skipjack's default lease).
        double recoveryBound = 2 * (leaseSeconds > 0 ? leaseSeconds : Skipjack.DEFAULT_LEASE.toSeconds());
        CutFigures cutFigures = cut == null ? null : cut.figures(ds, sql, recoveryBound);
        long overlapsBehindCut = cutFigures == null ? 0 : cutFigures.overlapsBehindCut;
        if (overlapsBehindCut > 0) {
            out.printf(Locale.ROOT, "  of its overlapping leases, %d are handlers of the cut host that outlived their lease"
                    + " behind the cut (their audit write waited on the dead link); their completions did not count%n",
                    overlapsBehindCut);
        }
        long connectionsPerHost = Math.max(drain == null ? 0 : drain.connectionsPerHost(), stream.connectionsPerHost());
        boolean ok = report.missing() == 0 && report.lost() == 0 && report.stuck() == 0
                && report.unexplainedDuplicates() == 0 && report.attemptMismatches() == 0
                && report.overlappingLeases() - overlapsBehindCut == 0
                && (cutFigures == null || cutFigures.ok());
        DatabaseLoad.Figures capacity = drain != null ? drain : stream;
        String result = String.format(Locale.ROOT, "RESULT workload=hosts hosts=%d jobs_per_s=%.0f connections_per_host=%d"
                        + " stream_offered_per_s=%.0f stream_jobs_per_s=%.0f backlog_max=%d db_cpu_cores=%s"
                        + " db_cpu_cores_stream=%s forwarder_cpu_cores=%.2f worker_cpu_cores=%.2f driver_cpu_cores=%.2f"
                        + " machine_busy_pct=%.0f lock_waits_max=%d"
                        + " ungranted_locks_max=%d jobs=%d lost=%d unexplained_duplicates=%d explained_duplicates=%d"
                        + " overlapping_leases=%d stuck=%d attempt_mismatches=%d %s verdict=%s",
                hosts, drainPerSecond, connectionsPerHost, offeredPerSecond, streamPerSecond, backlogMax,
                cores(capacity.databaseCores()), cores(stream.databaseCores()), capacity.forwarderCores(),
                capacity.workerCores(), capacity.driverCores(), capacity.machineBusyPercent(), Math.max(capacity.lockWaitsMax(), stream.lockWaitsMax()),
                Math.max(capacity.ungrantedLocksMax(), stream.ungrantedLocksMax()), report.jobs(),
                report.lost() + report.missing(), report.unexplainedDuplicates(), report.explainedDuplicates(),
                report.overlappingLeases() - overlapsBehindCut, report.stuck(), report.attemptMismatches(),
                cutFigures == null ? "cut=none recovery_max_s=none" : cutFigures.describe(), ok ? "ok" : "FAILED");
        out.println(result);
        out.flush();
        return result;
    }

    private static String workerId(int host) {
        return "h" + host;
    }

    private static String cores(Double cores) {
        return cores == null ? "n/a" : String.format(Locale.ROOT, "%.2f", cores);
    }

    private static String describe(DatabaseLoad.Figures f) {
        return String.format(Locale.ROOT, "CPU in cores: database %s, forwarder %.2f, worker JVMs %.2f, driver %.2f;"
                        + " machine %.0f%% busy; lock waits max %d (mean %.1f), ungranted locks max %d, active sessions"
                        + " max %d; peak connections %s", cores(f.databaseCores()), f.forwarderCores(), f.workerCores(),
                f.driverCores(), f.machineBusyPercent(),
                f.lockWaitsMax(), f.lockWaitsMean(), f.ungrantedLocksMax(), f.activeSessionsMax(),
                f.peakConnectionsByHost());
    }

    /** Jobs finished and jobs left in the run's table. */
    private static long[] progress(DataSource ds, HostsSql sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql.get("progress"))) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    private static void awaitDone(DataSource ds, HostsSql sql, long timeoutNanos) throws Exception {
        long deadline = System.nanoTime() + timeoutNanos;
        while (progress(ds, sql)[1] > 0) {
            if (System.nanoTime() > deadline) {
                throw new CliException("hosts: jobs left unfinished after " + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos)
                        + " s; see the worker logs");
            }
            Thread.sleep(20);
        }
    }

    private static Timestamp databaseClock(DataSource ds, HostsSql sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql.get("database_clock"))) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }

    /** The figures of a cut, as the database recorded them. */
    private record CutFigures(String worker, boolean wasLeader, int held, long rescued, long staleCompletions, long completedBeforeRescue,
                              Double recoveryMaxSeconds, double recoveryBoundSeconds, long notElsewhere,
                              long startedWhileCut, Double rejoinedSeconds, long overlapsBehindCut) {

        boolean ok() {
            return staleCompletions == 0 && notElsewhere == 0 && startedWhileCut == 0 && rejoinedSeconds != null
                    && (recoveryMaxSeconds == null || recoveryMaxSeconds <= recoveryBoundSeconds);
        }

        String describe() {
            return String.format(Locale.ROOT, "cut=%s cut_was_leader=%s held_at_cut=%d rescued=%d recovery_max_s=%s recovery_bound_s=%.0f"
                            + " stale_completions=%d"
                            + " completed_before_rescue=%d started_while_cut=%d overlaps_behind_cut=%d rejoined_s=%s",
                    worker, wasLeader, held, rescued, recoveryMaxSeconds == null ? "none" : String.format(Locale.ROOT, "%.1f",
                            recoveryMaxSeconds), recoveryBoundSeconds, staleCompletions, completedBeforeRescue, startedWhileCut,
                    overlapsBehindCut, rejoinedSeconds == null ? "never" : String.format(Locale.ROOT, "%.1f",
                            rejoinedSeconds));
        }
    }

    /** One host's link cut mid-stream and restored: when, what it held, when it worked again. */
    private final class Cut {
        private int host;
        private String worker;
        private Timestamp cutAt;
        private Timestamp restoredAt;
        private Timestamp rejoinedAt;
        private long restoredNanos;
        private long nextRejoinPoll;
        private List<long[]> held = List.of();
        private boolean wasLeader;

        Cut(int host) {
            this.host = host;
            this.worker = workerId(host);
        }

        /** True once the host is back and completed a new job, or gave up waiting for that (2 minutes). */
        boolean settled() {
            return rejoinedAt != null || (restoredAt != null && System.nanoTime() - restoredNanos > TimeUnit.MINUTES.toNanos(2));
        }

        void step(long sinceStreamStart, HostNetwork network, DataSource ds, HostsSql sql, AuditTables audit,
                  PrintWriter out) throws SQLException {
            if (cutAt == null && sinceStreamStart >= (long) (cutAfterSeconds * 1e9)) {
                String leader = maintenanceLeader(ds, sql);
                if (cutLeader && leader != null && leader.matches("h[0-9]+")) {
                    host = Integer.parseInt(leader.substring(1));
                    worker = leader;
                }
                // Cut it while it holds jobs (if it gets any within 30 s: a loaded machine starts the
                // host's JVM late), so that recovery is measured. Polled, not spun: each look is a query.
                long holdDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (heldBy(ds, sql).isEmpty() && System.nanoTime() < holdDeadline) {
                    try {
                        Thread.sleep(20); // the poll interval of a wait with a deadline
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                network.cut(host);
                // After the cut nothing of this host reaches the database: what it holds now is final.
                cutAt = databaseClock(ds, sql);
                try (Connection c = ds.getConnection()) {
                    audit.recordFault(c, worker, "cut");
                }
                held = heldBy(ds, sql);
                wasLeader = worker.equals(leader);
                out.printf(Locale.ROOT, "  cut host %d (worker %s) at %s; it held %d jobs%s%n", host, worker, cutAt,
                        held.size(), wasLeader ? " and the maintenance leadership (the lease rescuer)" : "");
                out.flush();
            } else if (cutAt != null && restoredAt == null
                    && sinceStreamStart >= (long) ((cutAfterSeconds + cutForSeconds) * 1e9)) {
                network.restore(host);
                restoredAt = databaseClock(ds, sql);
                restoredNanos = System.nanoTime();
                out.printf(Locale.ROOT, "  restored host %d's link at %s%n", host, restoredAt);
                out.flush();
            } else if (restoredAt != null && rejoinedAt == null && System.nanoTime() > nextRejoinPoll) {
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.get("rejoined"))) {
                    ps.setString(1, worker);
                    ps.setTimestamp(2, restoredAt);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        rejoinedAt = rs.getTimestamp(1);
                    }
                }
                if (rejoinedAt != null) {
                    out.printf(Locale.ROOT, "  host %d completed a new job %.1f s after its link came back%n", host,
                            (rejoinedAt.getTime() - restoredAt.getTime()) / 1e3);
                    out.flush();
                }
                nextRejoinPoll = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            }
        }

        private static String maintenanceLeader(DataSource ds, HostsSql sql) throws SQLException {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery(sql.get("maintenance_leader"))) {
                return rs.next() ? rs.getString(1) : null;
            }
        }

        private List<long[]> heldBy(DataSource ds, HostsSql sql) throws SQLException {
            List<long[]> jobs = new ArrayList<>();
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.get("held_by"))) {
                ps.setString(1, worker);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        jobs.add(new long[] {rs.getLong(1), rs.getInt(2)});
                    }
                }
            }
            return jobs;
        }

        CutFigures figures(DataSource ds, HostsSql sql, double recoveryBound) throws SQLException {
            if (cutAt == null || restoredAt == null) {
                throw new CliException("hosts: the stream ended before the cut was restored");
            }
            try (Connection c = ds.getConnection()) {
                long rescued;
                long stale;
                long completedBefore;
                Double recovery;
                long notElsewhere;
                try (PreparedStatement ps = c.prepareStatement(sql.get("cut_outcome"))) {
                    Array ids = c.createArrayOf("bigint", held.stream().map(h -> h[0]).toArray());
                    Array attempts = c.createArrayOf("integer", held.stream().map(h -> (int) h[1]).toArray());
                    ps.setString(1, worker);
                    ps.setArray(2, ids);
                    ps.setArray(3, attempts);
                    ps.setTimestamp(4, cutAt);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        rescued = rs.getLong(1);
                        stale = rs.getLong(2);
                        completedBefore = rs.getLong(3);
                        double r = rs.getDouble(4);
                        recovery = rs.wasNull() ? null : r;
                        notElsewhere = rs.getLong(5);
                    }
                }
                long startedWhileCut;
                try (PreparedStatement ps = c.prepareStatement(sql.get("started_while_cut"))) {
                    ps.setString(1, worker);
                    ps.setTimestamp(2, cutAt);
                    ps.setTimestamp(3, restoredAt);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        startedWhileCut = rs.getLong(1);
                    }
                }
                long overlaps;
                try (PreparedStatement ps = c.prepareStatement(sql.get("overlaps_behind_cut"))) {
                    for (int side = 0; side < 2; side++) {
                        ps.setString(side * 3 + 1, worker);
                        ps.setTimestamp(side * 3 + 2, cutAt);
                        ps.setTimestamp(side * 3 + 3, cutAt);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        overlaps = rs.getLong(1);
                    }
                }
                Double rejoined = rejoinedAt == null ? null : (rejoinedAt.getTime() - restoredAt.getTime()) / 1e3;
                return new CutFigures(worker, wasLeader, held.size(), rescued, stale, completedBefore, recovery, recoveryBound,
                        notElsewhere,
                        startedWhileCut, rejoined, overlaps);
            }
        }
    }
}
