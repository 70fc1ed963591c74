package dev.skipjack.lab;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.Backend;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.KindOptions;
import dev.skipjack.Skipjack;
import dev.skipjack.cli.CliException;
import dev.skipjack.cli.DatabaseConnection;
import dev.skipjack.cli.DatabaseOptions;
import dev.skipjack.cli.DatabaseUrl;
import dev.skipjack.internal.sql.TableNames;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * {@code skipjack-lab chaos}: the long fault mix of RELIABILITY.md against any PostgreSQL or
 * MariaDB/MySQL server. Worker JVMs
 * with Skipjack's default settings drain a steady stream of jobs (1% poison) while worker JVMs are
 * SIGKILLed and replaced and worker connections are terminated at random; with {@code
 * --restart-every}, the embedded PostgreSQL it started is restarted too. A run lasts {@code
 * --minutes}, or until {@code --jobs} jobs were enqueued (the long mode: a million jobs).
 * Afterwards the independent audit checker judges the run and a RESULT line sums it up, with the
 * jobs table's dead tuples on PostgreSQL. Exits 1 on a violation.
 * Not on SQLite: several worker JVMs on one database file are outside its one-process model
 * (docs/backends.md).
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = {"Runs jobs under injected faults and checks the audit: nothing lost, no unexplained duplicate.",
                "Kills worker JVMs (and starts replacements) and terminates their connections at random;",
                "with --restart-every, restarts the embedded PostgreSQL it started (no --url).",
                "Runs for --minutes, or until --jobs jobs were enqueued.",
                "Uses schema 'skipjack_chaos' (or --schema; on MariaDB/MySQL a database), which it DROPS and recreates first.",
                "PostgreSQL or MariaDB/MySQL; not SQLite (one process per database file).",
                "Without --url or SKIPJACK_DATABASE_URL, runs on an embedded PostgreSQL."})
public final class ChaosCommand implements Callable<Integer> {

    private static final String DEFAULT_SCHEMA = "skipjack_chaos";
    private static final String APPLICATION_NAME = "skipjack-chaos";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private DatabaseOptions database;

    @Option(names = "--minutes", defaultValue = "1", paramLabel = "N", description = "How long to inject faults (default: ${DEFAULT-VALUE}).")
    private double minutes;

    @Option(names = "--mode", defaultValue = "lease", paramLabel = "MODE",
            description = "lease or transactional (default: ${DEFAULT-VALUE}).")
    private String mode;

    @Option(names = "--workers", defaultValue = "4", paramLabel = "N", description = "Worker JVMs (default: ${DEFAULT-VALUE}).")
    private int workers;

    @Option(names = "--concurrency", defaultValue = "8", paramLabel = "N", description = "Jobs at once per worker JVM (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--rate", defaultValue = "200", paramLabel = "JOBS_PER_S", description = "Jobs enqueued per second (default: ${DEFAULT-VALUE}).")
    private int rate;

    @Option(names = "--kill-every", defaultValue = "15", paramLabel = "SECONDS",
            description = "SIGKILL a random worker JVM this often (default: ${DEFAULT-VALUE}).")
    private int killEverySeconds;

    @Option(names = "--terminate-every", defaultValue = "2", paramLabel = "SECONDS",
            description = "Terminate a random worker connection this often (pg_terminate_backend; KILL CONNECTION on"
                    + " MariaDB/MySQL) (default: ${DEFAULT-VALUE}).")
    private int terminateEverySeconds;

    @Option(names = "--jobs", defaultValue = "0", paramLabel = "N",
            description = "Enqueue this many jobs, however long it takes, instead of running for --minutes.")
    private long jobTarget;

    @Option(names = "--restart-every", defaultValue = "0", paramLabel = "SECONDS",
            description = "Restart the database this often (default: never). Only on the embedded PostgreSQL chaos"
                    + " starts itself: it must own the server it stops.")
    private int restartEverySeconds;

    @Option(names = "--seed", paramLabel = "N", description = "Random seed, to repeat a run's choices.")
    private Long seed;

    @Override
    public Integer call() throws Exception {
        if (!(minutes > 0) || workers < 1 || concurrency < 1 || rate < 1 || killEverySeconds < 1 || terminateEverySeconds < 1) {
            throw new CliException("--minutes, --workers, --concurrency, --rate, --kill-every and --terminate-every must be positive");
        }
        if (!mode.equals("lease") && !mode.equals("transactional")) {
            throw new CliException("--mode must be lease or transactional, not '" + mode + "'");
        }
        if (jobTarget < 0 || restartEverySeconds < 0) {
            throw new CliException("--jobs and --restart-every must not be negative");
        }
        if (restartEverySeconds > 0 && database.url().isPresent()) {
            throw new CliException("--restart-every restarts the embedded PostgreSQL chaos starts itself, so it takes"
                    + " no --url or SKIPJACK_DATABASE_URL: chaos must own the server it stops");
        }
        PrintWriter out = spec.commandLine().getOut();
        Path logDir = Files.createTempDirectory("skipjack-chaos-");
        if (restartEverySeconds == 0) {
            // Closing the launcher SIGKILLs every worker JVM still running, however the run ends.
            try (DatabaseConnection connection = DatabaseConnection.open(database.url(), 8, out);
                 WorkerProcesses workerProcesses = new WorkerProcesses(logDir, List.of("-Xmx256m"))) {
                return run(connection, workerProcesses, null, out);
            }
        }
        out.println("Starting an embedded PostgreSQL that chaos restarts every " + restartEverySeconds + " s...");
        out.flush();
        try (RestartablePostgres server = RestartablePostgres.start();
             DatabaseConnection connection = DatabaseConnection.open(Optional.of(DatabaseUrl.parse(server.jdbcUrl())), 8, out);
             WorkerProcesses workerProcesses = new WorkerProcesses(logDir, List.of("-Xmx256m"))) {
            return run(connection, workerProcesses, server, out);
        }
    }

    private int run(DatabaseConnection connection, WorkerProcesses workerProcesses, RestartablePostgres server,
                    PrintWriter out) throws Exception {
        DataSource ds = connection.dataSource();
        String schema = database.schemaOr(DEFAULT_SCHEMA);
        TableNames names = new TableNames(schema, "skipjack_"); // validates before the DROP below
        long seedValue = seed != null ? seed : System.nanoTime();
        Random random = new Random(seedValue);
        Skipjack producer = Skipjack.builder(ds).schema(schema)
                .kind(JobKind.of("chaos", AuditedWorker.Work.class))
                .kind(JobKind.of("chaos-poison", AuditedWorker.Work.class), KindOptions.defaults().withMaxAttempts(3))
                .build();
        Backend backend = producer.backend();
        if (backend == Backend.SQLITE) {
            throw new CliException("chaos runs worker JVMs against one database, and SQLite is one process per"
                    + " database file (docs/backends.md): use PostgreSQL or MariaDB/MySQL");
        }
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(backend == Backend.POSTGRESQL
                    ? "DROP SCHEMA IF EXISTS " + names.quotedSchema() + " CASCADE"
                    : "DROP DATABASE IF EXISTS " + names.quotedWith('`').quotedSchema());
        }
        producer.migrate();
        AuditTables audit = new AuditTables(producer.backend(), names);
        try (Connection c = ds.getConnection()) {
            audit.create(c);
        }
        out.printf(Locale.ROOT, "chaos: %s mode, %d worker JVMs x %d, %d jobs/s %s, kill every %d s,"
                        + " terminate a connection every %d s, %s, seed %d%n", mode, workers, concurrency, rate,
                jobTarget > 0 ? "until " + jobTarget + " jobs" : String.format(Locale.ROOT, "for %.1f min", minutes),
                killEverySeconds, terminateEverySeconds,
                server == null ? "no database restarts" : "restart the database every " + restartEverySeconds + " s", seedValue);
        out.flush();

        if (connection.url().password() != null) {
            workerProcesses.environment(Map.of(AuditedWorker.PASSWORD_ENV, connection.url().password()));
        }
        Path logDir = workerProcesses.logDir().toPath();
        List<String> alive = new ArrayList<>();
        List<Process> aliveProcesses = new ArrayList<>();
        int started = 0;
        for (int i = 0; i < workers; i++) {
            String name = "chaos-" + started++;
            alive.add(name);
            aliveProcesses.add(startWorker(workerProcesses, connection.url(), schema, name));
        }
        long enqueued = 0;
        int kills = 0;
        int terminated = 0;
        int restarts = 0;
        int n = 0;
        long startNanos = System.nanoTime();
        long end = startNanos + (long) (minutes * 60e9);
        long nextRestart = server == null ? Long.MAX_VALUE : startNanos + TimeUnit.SECONDS.toNanos(restartEverySeconds);
        long nextKill = System.nanoTime() + TimeUnit.SECONDS.toNanos(killEverySeconds);
        long nextTerminate = System.nanoTime() + TimeUnit.SECONDS.toNanos(terminateEverySeconds);
        long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (jobTarget > 0 ? enqueued < jobTarget : System.nanoTime() < end) {
            int perTick = (int) Math.max(1, jobTarget > 0 ? Math.min(rate / 10, jobTarget - enqueued) : rate / 10);
            List<JobRequest> batch = new ArrayList<>(perTick);
            for (int i = 0; i < perTick; i++) {
                batch.add(JobRequest.of(n % 100 == 99 ? "chaos-poison" : "chaos", new AuditedWorker.Work(n)));
                n++;
            }
            enqueued += producer.enqueueAll(batch).size();
            long now = System.nanoTime();
            if (now > nextKill) {
                int victim = random.nextInt(alive.size());
                // Kill it while it holds jobs (if it gets any within a second), so recovery is measured.
                String victimName = alive.get(victim);
                long holdDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                while (count(ds, "SELECT count(*) FROM " + producer.jobsTable() + " WHERE state = 'running'"
                        + " AND claimed_by = ?", victimName) == 0 && System.nanoTime() < holdDeadline) {
                    Thread.onSpinWait();
                }
                WorkerProcesses.kill(aliveProcesses.get(victim));
                try (Connection c = ds.getConnection()) {
                    audit.recordFault(c, alive.get(victim), "killed");
                }
                kills++;
                String name = "chaos-" + started++;
                alive.set(victim, name);
                aliveProcesses.set(victim, startWorker(workerProcesses, connection.url(), schema, name));
                nextKill = now + TimeUnit.SECONDS.toNanos(killEverySeconds);
            }
            if (now > nextTerminate) {
                if (backend == Backend.POSTGRESQL) {
                    terminated += terminateOne(ds, schema);
                } else {
                    try (Connection c = ds.getConnection()) {
                        terminated += audit.killRandomWorkerConnection(c);
                    }
                }
                nextTerminate = now + TimeUnit.SECONDS.toNanos(terminateEverySeconds);
            }
            if (now > nextRestart) {
                // Between two enqueues, so no enqueue is ever in doubt; the workers are mid-flight.
                try (Connection c = ds.getConnection()) {
                    audit.recordFault(c, "*", "restart");
                }
                server.restart();
                restarts++;
                // Pooled connections were all cut; a connection used in the last half second is
                // handed out unchecked, and the next enqueue must not fail on one.
                if (ds instanceof HikariDataSource pool) {
                    pool.getHikariPoolMXBean().softEvictConnections();
                }
                nextRestart = System.nanoTime() + TimeUnit.SECONDS.toNanos(restartEverySeconds);
            }
            if (now > nextReport) {
                out.printf(Locale.ROOT, "  %d jobs enqueued, %d kills, %d connections terminated, %d restarts%n",
                        enqueued, kills, terminated, restarts);
                out.flush();
                nextReport = now + TimeUnit.SECONDS.toNanos(30);
            }
            Thread.sleep(100); // the enqueue rate: a tenth of --rate every 100 ms
        }
        out.println("faults stopped; waiting for the queue to drain...");
        out.flush();
        String jobs = producer.jobsTable();
        String unfinished = "SELECT count(*) FROM " + jobs + " WHERE state NOT IN ('completed', 'discarded', 'cancelled')";
        // A long run may end with a backlog: wait as long as it shrinks, and three minutes once it stops shrinking.
        long left = count(ds, unfinished);
        long drainDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (left > 0 && System.nanoTime() < drainDeadline) {
            Thread.sleep(500);
            long now = count(ds, unfinished);
            if (now < left) {
                drainDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            }
            left = now;
        }
        double elapsedMinutes = (System.nanoTime() - startNanos) / 60e9;
        for (Process p : aliveProcesses) {
            p.destroy(); // SIGTERM: graceful
        }
        for (Process p : aliveProcesses) {
            p.waitFor(30, TimeUnit.SECONDS);
        }
        AuditReport report;
        try (Connection c = ds.getConnection()) {
            report = new AuditChecker(producer.backend(), names).check(c,
                    mode.equals("lease") ? AuditChecker.Mode.LEASE : AuditChecker.Mode.TRANSACTIONAL, enqueued);
        }
        out.println(report.summary());
        out.printf(Locale.ROOT, "RESULT workload=chaos mode=%s minutes=%.1f jobs=%d lost=%d unexplained_duplicates=%d"
                        + " recovery_max_s=%s explained_duplicates=%d stuck=%d overlapping_leases=%d attempt_mismatches=%d"
                        + " kills=%d terminated_connections=%d restarts=%d dead_tuples=%s verdict=%s%n",
                mode, elapsedMinutes, report.jobs(), report.lost() + report.missing(), report.unexplainedDuplicates(),
                report.recoveryMaxSeconds() == null ? "none" : String.format(Locale.ROOT, "%.1f", report.recoveryMaxSeconds()),
                report.explainedDuplicates(), report.stuck(), report.overlappingLeases(), report.attemptMismatches(),
                kills, terminated, restarts, backend == Backend.POSTGRESQL ? String.valueOf(deadTuples(ds, schema)) : "n/a",
                report.ok() ? "ok" : "FAILED");
        out.println("worker logs: " + logDir);
        out.flush();
        return report.ok() ? 0 : 1;
    }

    /**
     * A chaos worker JVM: Skipjack's default lease and intervals, batches of 10, 2-20 ms per job, a
     * 5 s graceful stop, and connections named {@value #APPLICATION_NAME}&lt;schema&gt; so that
     * {@link #terminateOne} hits only this run's workers.
     */
    private Process startWorker(WorkerProcesses workerProcesses, DatabaseUrl url, String schema, String workerId) {
        WorkerOptions options = WorkerOptions.of(url.jdbcUrl(), schema, mode, workerId).user(url.user())
                .concurrency(concurrency).batch(10).leaseMillis(0).rescueMillis(0).pauseMillis(2, 20)
                .shutdownMillis(5_000).kind("chaos").applicationName(APPLICATION_NAME);
        try {
            return workerProcesses.start(options);
        } catch (IOException e) {
            throw new CliException("chaos " + e.getMessage());
        }
    }

    /** Terminates one random backend of this run's workers; returns how many (0 or 1). */
    private static int terminateOne(DataSource ds, String schema) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity"
                        + " WHERE application_name = ? ORDER BY random() LIMIT 1) t")) {
            ps.setString(1, APPLICATION_NAME + " " + schema);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** The jobs table's dead tuples as PostgreSQL's statistics count them (what autovacuum has yet to reclaim). */
    private static long deadTuples(DataSource ds, String schema) throws SQLException {
        return count(ds, "SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE schemaname = ? AND relname = ?",
                schema, "skipjack_jobs");
    }

    private static long count(DataSource ds, String sql, String... params) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
