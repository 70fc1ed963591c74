package dev.skipjack.audit.process;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.Backend;
import dev.skipjack.Job;
import dev.skipjack.JobKind;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.QueueOptions;
import dev.skipjack.Skipjack;
import dev.skipjack.TwoPhaseJobHandler;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.audit.AuditTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * A worker JVM for multi-process runs: the fault tests (through {@link WorkerProcesses}) and the
 * lab's {@code chaos} command. Its audited kind writes one row to the schema's execution audit
 * per execution: in lease mode in its own transaction, in transactional mode inside the job's
 * transaction. Runs until killed; SIGTERM stops the client gracefully (F-18), like a container
 * being stopped. Arguments: {@link WorkerOptions}.
 *
 * <p>Besides the audited kind it runs {@code <kind>-poison} (always throws, Skipjack's default
 * attempts and timeout; the chaos mix) and the poison kinds of the fault tests, each with two
 * attempts and a 500 ms timeout: {@code poison-throw} (always throws), {@code poison-hang}
 * (ignores interrupts past its timeout for 3 s) and {@code poison-error} (throws an
 * {@link Error}). No poison kind writes an audit row.
 *
 * <p>Runs on PostgreSQL and the MySQL family (the URL's driver must be on the class path; the
 * backend is detected as Skipjack detects it). SQLite is one process by design (docs/backends.md),
 * so no test runs worker JVMs on it; {@link #auditedKinds} registers the same kinds in-process there.
 *
 * <p>Mode {@code naive} (PostgreSQL and the MySQL family) runs the hand-rolled claimer the harness
 * must catch instead; mode {@code two-phase} runs only the two-phase kind {@code pay} of
 * TwoPhaseCommitTest, halting the JVM at its crash point.
 *
 * <p>Once running it prints {@code READY <workerId> <wall clock millis>}: the wall clock this
 * JVM sees, so clock-skew tests can check their skew took effect.
 */
public final class AuditedWorker {

    /** The database password, when there is one: in the environment, never on the command line. */
    public static final String PASSWORD_ENV = "SKIPJACK_WORKER_PASSWORD";

    /** Pause of the naive claimer between its SELECT and its UPDATE, to widen its race window. */
    static final int NAIVE_PAUSE_MILLIS = 5;

    /** The arguments of the audited and poison kinds. */
    public record Work(int n) {
    }

    /** The arguments of the two-phase kind {@code pay}. */
    public record Payment(int amount) {
    }

    private AuditedWorker() {
    }

    public static void main(String[] argv) throws Exception {
        WorkerOptions o = WorkerOptions.parse(argv);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(o.jdbcUrl);
        config.setUsername(o.user);
        config.setPassword(System.getenv(PASSWORD_ENV));
        config.setMaximumPoolSize(o.concurrency + 6);
        if (o.jdbcUrl.startsWith("jdbc:postgresql:")) {
            // Lets the driver find this run's worker connections in pg_stat_activity.
            config.addDataSourceProperty("ApplicationName", o.fullApplicationName());
        } else if (o.jdbcUrl.startsWith("jdbc:mariadb:") || o.jdbcUrl.startsWith("jdbc:mysql:")) {
            // The MySQL family's process list names no application: each connection records its
            // id under this worker in the audit (created before workers start) instead. MySQL and
            // MariaDB share the audit's SQL, so either backend gives the same statement.
            config.setConnectionInitSql(new AuditTables(Backend.MARIADB, new TableNames(o.schema, "skipjack_"))
                    .connectionInitSql(o.workerId));
        }
        HikariDataSource ds = new HikariDataSource(config);
        long pid = ProcessHandle.current().pid();

        if (o.mode.equals("naive")) {
            runNaive(ds, o, pid);
            return;
        }
        Skipjack.Builder builder = Skipjack.builder(ds)
                .schema(o.schema)
                .workerId(o.workerId)
                .shutdownTimeout(Duration.ofMillis(o.shutdownMillis))
                .queue(new QueueOptions("default", o.concurrency, o.batch));
        if (o.leaseMillis > 0) {
            builder.lease(Duration.ofMillis(o.leaseMillis));
        }
        if (o.rescueMillis > 0) {
            builder.pollInterval(Duration.ofMillis(50)).rescueInterval(Duration.ofMillis(o.rescueMillis));
        }
        switch (o.mode) {
            case "lease", "transactional" -> auditedKinds(builder, ds, o, pid);
            case "two-phase" -> builder.twoPhaseHandler(JobKind.of("pay", Payment.class), new TwoPhasePayment(ds, o));
            default -> throw new IllegalArgumentException("unknown mode '" + o.mode + "'");
        }
        Skipjack skipjack = builder.build();
        Runtime.getRuntime().addShutdownHook(new Thread(skipjack::close, "graceful-stop"));
        skipjack.start();
        ready(o);
        new CountDownLatch(1).await(); // until killed
    }

    private static void ready(WorkerOptions o) {
        System.out.println("READY " + o.workerId + " " + System.currentTimeMillis());
        System.out.flush();
    }

    /**
     * Registers the audited kind of {@code o} (lease or transactional mode, its pause) and the
     * poison kinds on {@code builder}, writing audit rows through {@code ds}. A worker JVM calls it
     * for itself; on SQLite, where worker JVMs on one file are outside the model, a test calls it
     * for several clients in its own JVM (NoDuplicatesNoLossTest).
     */
    public static void auditedKinds(Skipjack.Builder builder, DataSource ds, WorkerOptions o) throws SQLException {
        auditedKinds(builder, ds, o, ProcessHandle.current().pid());
    }

    private static void auditedKinds(Skipjack.Builder builder, DataSource ds, WorkerOptions o, long pid)
            throws SQLException {
        AuditTables audit = AuditTables.detect(ds, new TableNames(o.schema, "skipjack_"));
        String workerId = o.workerId;
        if (o.mode.equals("transactional")) {
            builder.transactionalHandler(JobKind.of(o.kind, Work.class), (job, tx) -> {
                pause(o);
                // started_at null: the audit uses the database's now (on PostgreSQL the job transaction's, the claim time).
                audit.recordExecution(tx, job.id(), job.attempt(), workerId, pid, null);
                return Outcome.complete();
            });
        } else {
            // Database time without a round trip per job: a handler blocked in a query when a
            // partition starts would swallow the interrupt that stops it (see NetworkFaultTest).
            long clockOffsetMicros;
            try (Connection c = ds.getConnection()) {
                clockOffsetMicros = audit.databaseNowMicros(c) - System.currentTimeMillis() * 1_000;
            }
            builder.handler(JobKind.of(o.kind, Work.class), job -> {
                long startedAt = System.currentTimeMillis() * 1_000 + clockOffsetMicros;
                if (o.probeKeys) {
                    try (Connection c = ds.getConnection()) {
                        audit.enterKey(c, job.id(), job.attempt());
                    }
                }
                pause(o);
                try (Connection c = ds.getConnection()) {
                    if (o.probeKeys) {
                        audit.leaveKey(c, job.id(), job.attempt());
                    }
                    audit.recordExecution(c, job.id(), job.attempt(), workerId, pid, startedAt);
                }
                return Outcome.complete();
            });
        }
        builder.handler(JobKind.of(o.kind + "-poison", Work.class), KindOptions.defaults().withRetryPolicy(a -> Duration.ZERO), job -> {
            throw new IllegalStateException("poison job " + job.id());
        });
        KindOptions poison = KindOptions.defaults().withMaxAttempts(2).withTimeout(Duration.ofMillis(500))
                .withRetryPolicy(attempt -> Duration.ZERO);
        builder.handler(JobKind.of("poison-throw", Work.class), poison, job -> {
            throw new IllegalStateException("poison job " + job.id() + " always throws");
        });
        builder.handler(JobKind.of("poison-hang", Work.class), poison, job -> {
            long until = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait(); // ignores its interrupt on purpose
            }
            return Outcome.complete();
        });
        builder.handler(JobKind.of("poison-error", Work.class), poison, job -> {
            throw new StackOverflowError("poison job " + job.id() + " throws an Error");
        });
    }

    private static void pause(WorkerOptions o) throws InterruptedException {
        long millis = o.pauseMaxMillis > o.pauseMinMillis
                ? ThreadLocalRandom.current().nextInt(o.pauseMinMillis, o.pauseMaxMillis)
                : o.pauseMinMillis;
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }

    /**
     * The two-phase kind of TwoPhaseCommitTest: its database work is a {@code ledger} row and its
     * outside system the {@code external_effects} table, written on a connection of its own (so it
     * is not part of the prepared transaction). It halts the JVM — no shutdown hooks, like
     * SIGKILL — at the step named by the crash point.
     */
    private record TwoPhasePayment(HikariDataSource ds, WorkerOptions o) implements TwoPhaseJobHandler<Payment> {

        private String table(String name) {
            return "\"" + o.schema + "\"." + name;
        }

        @Override
        public Outcome prepare(Job<Payment> job, Connection tx) throws Exception {
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO " + table("ledger") + " (job_id, attempt, amount) VALUES (?, ?, ?)")) {
                ps.setLong(1, job.id());
                ps.setInt(2, job.attempt());
                ps.setInt(3, job.args().amount());
                ps.executeUpdate();
            }
            crashIf("before-prepare");
            return Outcome.complete();
        }

        @Override
        public void callExternal(Job<Payment> job) throws Exception {
            crashIf("after-prepare");
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO " + table("external_effects") + " (job_id, attempt) VALUES (?, ?)")) {
                ps.setLong(1, job.id());
                ps.setInt(2, job.attempt());
                ps.executeUpdate();
            }
            crashIf("after-external");
        }

        @Override
        public boolean externalEffectHappened(long jobId, int attempt) throws Exception {
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "SELECT count(*) FROM " + table("external_effects") + " WHERE job_id = ? AND attempt = ?")) {
                ps.setLong(1, jobId);
                ps.setInt(2, attempt);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) > 0;
                }
            }
        }

        private void crashIf(String here) {
            if (o.crashPoint.equals(here)) {
                Runtime.getRuntime().halt(137);
            }
        }
    }

    /**
     * The hand-rolled pattern Skipjack exists to replace: SELECT due rows, then UPDATE them, in two
     * statements with no lock between. Used only as the control that shows the harness can fail.
     * Its SQL is the same on PostgreSQL and the MySQL family (an IN list of bound ids,
     * CURRENT_TIMESTAMP, the dialect's identifier quote); each statement commits on its own, so
     * on either backend two workers can select the same rows before either updates them.
     */
    private static void runNaive(HikariDataSource ds, WorkerOptions o, long pid) throws InterruptedException {
        AuditTables audit = AuditTables.detect(ds, new TableNames(o.schema, "skipjack_"));
        String workerId = o.workerId;
        int batch = o.batch;
        String jobs = audit.jobsTable();
        List<Thread> workers = new ArrayList<>();
        ready(o);
        for (int t = 0; t < o.concurrency; t++) {
            Thread thread = new Thread(() -> {
                while (true) {
                    try (Connection c = ds.getConnection()) {
                        List<Long> ids = new ArrayList<>();
                        try (PreparedStatement ps = c.prepareStatement(
                                "SELECT id FROM " + jobs + " WHERE state = 'available' ORDER BY id LIMIT ?")) {
                            ps.setInt(1, batch);
                            try (ResultSet rs = ps.executeQuery()) {
                                while (rs.next()) {
                                    ids.add(rs.getLong(1));
                                }
                            }
                        }
                        if (ids.isEmpty()) {
                            Thread.sleep(20);
                            continue;
                        }
                        Thread.sleep(NAIVE_PAUSE_MILLIS);
                        String in = "(" + String.join(", ", java.util.Collections.nCopies(ids.size(), "?")) + ")";
                        try (PreparedStatement ps = c.prepareStatement("UPDATE " + jobs
                                + " SET state = 'running', attempt = attempt + 1, claimed_by = ?,"
                                + " lease_until = CURRENT_TIMESTAMP WHERE id IN " + in)) {
                            ps.setString(1, workerId);
                            for (int i = 0; i < ids.size(); i++) {
                                ps.setLong(i + 2, ids.get(i));
                            }
                            ps.executeUpdate();
                        }
                        for (long id : ids) {
                            audit.recordExecution(c, id, 1, workerId, pid, null);
                        }
                        try (PreparedStatement ps = c.prepareStatement("UPDATE " + jobs + " SET state = 'completed',"
                                + " finished_at = CURRENT_TIMESTAMP, lease_until = NULL WHERE id IN " + in)) {
                            for (int i = 0; i < ids.size(); i++) {
                                ps.setLong(i + 1, ids.get(i));
                            }
                            ps.executeUpdate();
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        System.err.println("naive worker: " + e);
                    }
                }
            });
            thread.start();
            workers.add(thread);
        }
        for (Thread t : workers) {
            t.join();
        }
    }
}
