package dev.skipjack.lab.failover;

import dev.skipjack.Backend;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.KindOptions;
import dev.skipjack.Skipjack;
import dev.skipjack.cli.CliException;
import dev.skipjack.internal.sql.TableNames;
// The execution audit and the audited worker JVM, shared with chaos and the fault tests.
import dev.skipjack.audit.AuditChecker;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.AuditTables;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerOptions;
import dev.skipjack.audit.process.WorkerProcesses;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * One failover run on a started {@link AutoFailoverCluster}: audited worker JVMs with Skipjack's
 * default settings and a producer drain a steady stream of jobs (1% poison) through the cluster's
 * multi-host URL while the primary fails over every {@code faultEvery} seconds, alternately by
 * {@code pg_autoctl perform failover} and by a hard stop. After each fault, once the old primary is
 * back as a secondary, the maintenance leader's worker JVM is SIGKILLed while it holds jobs: its
 * jobs can only come back if leadership moved to another worker and that worker's rescuer runs
 * against the new primary. Then the queue drains and the run is judged.
 */
public final class FailoverRun {

    static final String SCHEMA = "skipjack_failover";
    private static final String KIND = "failover";
    private static final String APPLICATION_NAME = "skipjack-failover";

    private final AutoFailoverCluster cluster;
    private final DataSource ds;
    private final String mode;
    private final int workers;
    private final int concurrency;
    private final int rate;
    private final long faultEveryNanos;
    private final int standbyStallSeconds;
    private final Path workerLogDir;
    private final PrintWriter out;
    private final TableNames names = new TableNames(SCHEMA, "skipjack_");
    private final FailoverStatements sql = new FailoverStatements(names);
    private final AuditTables audit = new AuditTables(Backend.POSTGRESQL, names);
    private final CommitLedger ledger = new CommitLedger();
    private final Map<String, Process> alive = new LinkedHashMap<>();
    private int started;

    /** @param ds the application's pool on the cluster's multi-host URL (the producer's) */
    public FailoverRun(AutoFailoverCluster cluster, DataSource ds, String mode, int workers, int concurrency, int rate,
                       int faultEverySeconds, int standbyStallSeconds, Path workerLogDir, PrintWriter out) {
        this.standbyStallSeconds = standbyStallSeconds;
        this.cluster = cluster;
        this.ds = ds;
        this.mode = mode;
        this.workers = workers;
        this.concurrency = concurrency;
        this.rate = rate;
        this.faultEveryNanos = TimeUnit.SECONDS.toNanos(faultEverySeconds);
        this.workerLogDir = workerLogDir;
        this.out = out;
    }

    /** Runs the load and the faults for {@code minutes}, drains, judges; returns the exit code. */
    public int run(double minutes) throws Exception {
        print("versions: " + cluster.versions());
        print("replication: " + cluster.replicationSettings());
        Skipjack producer = Skipjack.builder(ds).schema(SCHEMA)
                .kind(JobKind.of(KIND, AuditedWorker.Work.class))
                .kind(JobKind.of(KIND + "-poison", AuditedWorker.Work.class), KindOptions.defaults().withMaxAttempts(3))
                .build();
        producer.migrate();
        try (Connection c = ds.getConnection()) {
            audit.create(c);
        }
        try (WorkerProcesses processes = new WorkerProcesses(workerLogDir, List.of("-Xmx256m"))) {
            // Closing SIGKILLs every worker JVM; the hook does it when the run is interrupted.
            Thread hook = new Thread(() -> closeQuietly(processes), "failover-workers-cleanup");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                return drive(producer, processes, minutes);
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs (or ran) anyway
                }
            }
        }
    }

    private int drive(Skipjack producer, WorkerProcesses processes, double minutes) throws Exception {
        for (int i = 0; i < workers; i++) {
            startWorker(processes);
        }
        print(String.format(Locale.ROOT, "failover: %s mode, %d worker JVMs x %d, %d jobs/s for %.1f min, a fault every"
                + " %d s, standby stalled %d s before each hard stop, URL %s", mode, workers, concurrency, rate, minutes,
                TimeUnit.NANOSECONDS.toSeconds(faultEveryNanos), standbyStallSeconds, cluster.jdbcUrl()));
        Producer load = new Producer(producer);
        Thread loadThread = new Thread(load, "failover-producer");
        loadThread.start();
        FailoverProbe probe = new FailoverProbe(cluster.jdbcUrl(), cluster.user(), sql, audit);
        List<FailoverResult.Fault> faults = new ArrayList<>();
        long startNanos = System.nanoTime();
        long end = startNanos + (long) (minutes * 60e9);
        long nextFault = startNanos + faultEveryNanos;
        Timestamp firstFaultAt = null;
        try {
            while (sleepUntil(Math.min(nextFault, end)) && System.nanoTime() - end < 0) {
                String kind = faults.size() % 2 == 0 ? "perform_failover" : "hard_stop";
                ClusterState before = cluster.awaitState(ClusterState::stable, "a primary and a secondary");
                ClusterState.Node primary = before.writable().orElseThrow();
                String standby = before.nodes().stream().filter(n -> n != primary).findFirst().orElseThrow().name();
                if (!cluster.async()) {
                    // Before any stall: the barrier would wait for the stalled standby.
                    recordCompletedBeforeFault();
                }
                boolean stalled = kind.equals("hard_stop") && standbyStallSeconds > 0
                        && cluster.signalWalReceiver(standby, true) > 0;
                if (stalled) {
                    print(String.format(Locale.ROOT, "  %s's WAL receiver paused for %d s before the hard stop", standby,
                            standbyStallSeconds));
                    Thread.sleep(TimeUnit.SECONDS.toMillis(standbyStallSeconds));
                }
                if (cluster.async()) {
                    recordCompletedBeforeFault();
                }
                AutoFailoverCluster.StandbyLag lag = cluster.standbyLag(primary.port());
                long faultStart = System.nanoTime();
                nextFault = faultStart + faultEveryNanos;
                if (firstFaultAt == null) {
                    firstFaultAt = new Timestamp(System.currentTimeMillis());
                }
                print(String.format(Locale.ROOT, "fault %d at %.0f s: %s of %s (127.0.0.1:%d); %d jobs acknowledged,"
                        + " %d seen completed; standby behind by %d bytes not sent, %d not flushed", faults.size() + 1,
                        (faultStart - startNanos) / 1e9, kind, primary.name(), primary.port(), ledger.acknowledgedCount(),
                        ledger.completedCount(), lag.unsentBytes(), lag.unflushedBytes()));
                CompletableFuture<Void> performed = CompletableFuture.completedFuture(null);
                if (kind.equals("perform_failover")) {
                    performed = CompletableFuture.runAsync(() -> {
                        try {
                            cluster.performFailover();
                        } catch (IOException | InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                } else {
                    cluster.hardStop(primary.name());
                }
                if (stalled) {
                    cluster.signalWalReceiver(standby, false);
                }
                FailoverResult.Fault fault = probe.measure(kind, primary.port(), faultStart, lag.unflushedBytes());
                awaitPerformed(performed);
                faults.add(fault);
                print(String.format(Locale.ROOT, "  new primary took a connection after %.1f s, first job completed"
                        + " there after %.1f s, leader lease renewed there after %.1f s", fault.writableSeconds(),
                        fault.recoverySeconds(), fault.leaderSeconds()));
                if (kind.equals("hard_stop")) {
                    cluster.restart(primary.name());
                }
                ClusterState after = cluster.awaitState(ClusterState::stable, "the old primary back as a secondary");
                // The fault lasts until the cluster is whole again: until then a worker JVM whose
                // driver still avoids the new primary (pgjdbc re-checks a host it saw read-only
                // after hostRecheckSeconds, 10 s) may claim a job and then lose its lease.
                try (Connection c = ds.getConnection()) {
                    audit.recordFault(c, "*", kind + "_settled");
                }
                print("  cluster: " + after + "; replication: " + cluster.replicationSettings());
                killLeader(processes, producer.jobsTable());
            }
        } finally {
            load.stop = true;
            loadThread.join();
        }
        print(String.format(Locale.ROOT, "load stopped: %d jobs acknowledged, %d enqueue calls failed (%s); waiting"
                + " for the queue to drain...", ledger.acknowledgedCount(), load.failedBatches, load.lastError));
        drain();
        double elapsedMinutes = (System.nanoTime() - startNanos) / 60e9;
        for (Process p : alive.values()) {
            p.destroy(); // SIGTERM: graceful
        }
        for (Process p : alive.values()) {
            p.waitFor(30, TimeUnit.SECONDS);
        }
        return judge(faults, elapsedMinutes, firstFaultAt);
    }

    private int judge(List<FailoverResult.Fault> faults, double elapsedMinutes, Timestamp firstFaultAt)
            throws SQLException {
        AuditReport report;
        List<CommitLedger.JobRow> rows = jobRows();
        long rescuesAfter = 0;
        try (Connection c = ds.getConnection()) {
            report = new AuditChecker(Backend.POSTGRESQL, names).check(c,
                    mode.equals("lease") ? AuditChecker.Mode.LEASE : AuditChecker.Mode.TRANSACTIONAL, -1);
            if (firstFaultAt != null) {
                try (PreparedStatement ps = c.prepareStatement(sql.get("rescues_after"))) {
                    ps.setTimestamp(1, firstFaultAt);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        rescuesAfter = rs.getLong(1);
                    }
                }
            }
        }
        CommitLedger.Losses losses = ledger.check(rows);
        long completed = rows.stream().filter(r -> r.state().equals("completed")).count();
        boolean clean = report.ok() && losses.total() == 0;
        String verdict = clean ? "ok" : cluster.async() ? "measured" : "FAILED";
        print(report.summary());
        losses.examples().forEach(e -> print("  " + e));
        if (report.explainedDuplicates() + report.unexplainedDuplicates() > 0 || !clean) {
            printRows("faults recorded (worker, kind, at):", "faults");
            printRows("executions of jobs that ran more than once (job, attempt, worker, started, finished, job state,"
                    + " job attempt, errors):", "repeated_executions");
            printRows("executions of jobs with two executions of one attempt:", "same_attempt_executions");
        }
        print("jobs rescued from expired leases after the first failover: " + rescuesAfter);
        FailoverResult result = new FailoverResult(cluster.async() ? "async" : "sync", mode, elapsedMinutes, completed, faults,
                losses.lostEnqueues(), losses.lostCompletions(), report.lost() + report.missing(),
                report.unexplainedDuplicates(), report.explainedDuplicates(), report.stuck(), report.overlappingLeases(),
                report.attemptMismatches(), report.recoveryMaxSeconds(), rescuesAfter, verdict);
        print(result.line());
        print("worker logs: " + workerLogDir);
        return verdict.equals("FAILED") ? 1 : 0;
    }

    /**
     * SIGKILLs the worker JVM that holds the maintenance lease (waiting up to a second for it to
     * hold jobs), records the kill for the audit and starts a replacement: its jobs come back only
     * through another worker taking leadership and rescuing them on the new primary.
     */
    private void killLeader(WorkerProcesses processes, String jobsTable) throws Exception {
        String holder;
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.get("leader_lease"));
             ResultSet rs = ps.executeQuery()) {
            holder = rs.next() ? rs.getString(1) : null;
        }
        String victim = alive.containsKey(holder) ? holder : alive.keySet().iterator().next();
        long holdDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        long held = 0;
        while ((held = runningJobsOf(victim)) == 0 && System.nanoTime() - holdDeadline < 0) {
            Thread.sleep(20);
        }
        WorkerProcesses.kill(alive.remove(victim));
        try (Connection c = ds.getConnection()) {
            audit.recordFault(c, victim, "killed");
        }
        String replacement = startWorker(processes);
        print("  killed " + victim + (victim.equals(holder) ? " (the maintenance leader)" : " (leader " + holder + " not found)")
                + " holding " + held + " jobs; started " + replacement);
    }

    /** Prints the rows of a diagnostic statement, one line each. */
    private void printRows(String title, String statement) throws SQLException {
        print(title);
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.get(statement));
             ResultSet rs = ps.executeQuery()) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> values = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    values.add(String.valueOf(rs.getObject(i)));
                }
                print("  " + String.join(" | ", values));
            }
        }
    }

    private long runningJobsOf(String worker) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.get("running_jobs_of"))) {
            ps.setString(1, worker);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Waits as long as the backlog shrinks, and three minutes once it stops shrinking. */
    private void drain() throws SQLException, InterruptedException {
        long left = unfinished();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (left > 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(500);
            long now = unfinished();
            if (now < left) {
                deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            }
            left = now;
        }
    }

    private long unfinished() throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.get("unfinished_count"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Records in the ledger the jobs the primary shows completed now. A read on the primary also
     * sees commits still waiting for the synchronous standby (PostgreSQL makes a commit visible
     * before the standby confirms it), which a failover may rightly lose; so in sync mode a
     * barrier transaction follows, and only once it committed (the standby has everything the
     * read saw) does the read count. In async mode a commit is acknowledged as soon as it is local.
     */
    private void recordCompletedBeforeFault() throws SQLException {
        List<CommitLedger.JobRow> rows = jobRows();
        if (!cluster.async()) {
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.get("durability_barrier"))) {
                ps.execute();
            }
        }
        ledger.completedBeforeFault(rows);
    }

    private List<CommitLedger.JobRow> jobRows() throws SQLException {
        List<CommitLedger.JobRow> rows = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.get("job_states"));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(new CommitLedger.JobRow(rs.getInt(1), rs.getString(2), rs.getInt(3)));
            }
        }
        return rows;
    }

    /**
     * A worker JVM: Skipjack's default lease and intervals, batches of 10, 2-20 ms per job, a 5 s
     * graceful stop, on the cluster's multi-host URL. Returns its id.
     */
    private String startWorker(WorkerProcesses processes) {
        String id = "failover-" + started++;
        WorkerOptions options = WorkerOptions.of(cluster.jdbcUrl(), SCHEMA, mode, id).user(cluster.user())
                .concurrency(concurrency).batch(10).leaseMillis(0).rescueMillis(0).pauseMillis(2, 20)
                .shutdownMillis(5_000).kind(KIND).applicationName(APPLICATION_NAME);
        try {
            alive.put(id, processes.start(options));
        } catch (IOException e) {
            throw new CliException("failover " + e.getMessage());
        }
        return id;
    }

    private static void awaitPerformed(CompletableFuture<Void> performed) throws InterruptedException {
        try {
            performed.get(3, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw new CliException("pg_autoctl perform failover: " + e.getCause().getMessage());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new CliException("pg_autoctl perform failover did not return in 3 minutes");
        }
    }

    /** Sleeps until {@code nanos} (System.nanoTime); false if interrupted. */
    private static boolean sleepUntil(long nanos) {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private static void closeQuietly(WorkerProcesses processes) {
        try {
            processes.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void print(String line) {
        out.println(line);
        out.flush();
    }

    /**
     * The producer: a tenth of the rate every 100 ms, on the application's pool. A failed call
     * (the primary gone mid-failover) is counted and the next tick tries again with new jobs;
     * only returned calls are acknowledged in the ledger.
     */
    private final class Producer implements Runnable {

        private final Skipjack producer;
        volatile boolean stop;
        volatile long failedBatches;
        volatile String lastError = "none";
        private int next;

        Producer(Skipjack producer) {
            this.producer = producer;
        }

        @Override
        public void run() {
            int perTick = Math.max(1, rate / 10);
            while (!stop) {
                int from = next;
                List<JobRequest> batch = new ArrayList<>(perTick);
                for (int i = 0; i < perTick; i++) {
                    int n = next++;
                    batch.add(JobRequest.of(n % 100 == 99 ? KIND + "-poison" : KIND, new AuditedWorker.Work(n)));
                }
                try {
                    producer.enqueueAll(batch);
                    ledger.acknowledge(from, next);
                } catch (RuntimeException e) {
                    failedBatches++;
                    lastError = e.toString();
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
