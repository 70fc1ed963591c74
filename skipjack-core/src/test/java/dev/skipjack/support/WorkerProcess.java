package dev.skipjack.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.QueueOptions;
import dev.skipjack.Skipjack;
import dev.skipjack.internal.audit.AuditTables;
import dev.skipjack.internal.sql.TableNames;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A worker JVM for multi-process tests, started by {@link WorkerProcesses}. Every execution writes
 * one row to the schema's {@code audit} table: in lease mode in its own transaction, in
 * transactional mode inside the job's transaction. Runs until killed.
 *
 * <p>Arguments: jdbcUrl schema mode(lease|transactional|naive) workerId concurrency batch
 * leaseMillis handlerMillis [rescueMillis]. A rescueMillis of 0 keeps Skipjack's default rescue
 * and poll intervals (with leaseMillis 15000, the default settings end to end).
 *
 * <p>Besides {@code audit} it runs the poison kinds of the fault tests: {@code poison-throw}
 * (always throws), {@code poison-hang} (ignores interrupts past its 500 ms timeout for 3 s) and
 * {@code poison-error} (throws an {@link Error}); none of them writes an audit row. SIGTERM stops
 * the client gracefully (F-18), like a container being stopped.
 */
public final class WorkerProcess {

    /** Pause of the naive claimer between its SELECT and its UPDATE, to widen its race window. */
    static final int NAIVE_PAUSE_MILLIS = 5;

    public record AuditArgs(int n) {
    }

    public static void main(String[] argv) throws Exception {
        String url = argv[0];
        String schema = argv[1];
        String mode = argv[2];
        String workerId = argv[3];
        int concurrency = Integer.parseInt(argv[4]);
        int batch = Integer.parseInt(argv[5]);
        long leaseMillis = Long.parseLong(argv[6]);
        long handlerMillis = Long.parseLong(argv[7]);
        long rescueMillis = argv.length > 8 ? Long.parseLong(argv[8]) : 500;

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(concurrency + 6);
        // Lets fault tests find this schema's worker connections in pg_stat_activity.
        config.addDataSourceProperty("ApplicationName", "skipjack-worker " + schema);
        HikariDataSource ds = new HikariDataSource(config);
        long pid = ProcessHandle.current().pid();

        if (mode.equals("naive")) {
            runNaive(ds, schema, workerId, concurrency, batch, pid);
            return;
        }
        AuditTables audit = new AuditTables(new TableNames(schema, "skipjack_"));
        Skipjack.Builder builder = Skipjack.builder(ds)
                .schema(schema)
                .workerId(workerId)
                .lease(Duration.ofMillis(leaseMillis))
                .shutdownTimeout(Duration.ofSeconds(2))
                .queue(new QueueOptions("default", concurrency, batch));
        if (rescueMillis > 0) {
            builder.pollInterval(Duration.ofMillis(50)).rescueInterval(Duration.ofMillis(rescueMillis));
        }
        if (mode.equals("transactional")) {
            builder.transactionalHandler("audit", AuditArgs.class, (job, tx) -> {
                pause(handlerMillis);
                // started_at null: the audit uses the job transaction's now(), the claim time.
                audit.recordExecution(tx, job.id(), job.attempt(), workerId, pid, null);
                return Outcome.complete();
            });
        } else {
            // Database time without a round trip per job: a handler blocked in a query when a
            // partition starts would swallow the interrupt that stops it (see NetworkFaultTest).
            long clockOffsetMillis;
            try (Connection c = ds.getConnection()) {
                clockOffsetMillis = databaseNow(c).getTime() - System.currentTimeMillis();
            }
            builder.handler("audit", AuditArgs.class, job -> {
                Timestamp startedAt = new Timestamp(System.currentTimeMillis() + clockOffsetMillis);
                pause(handlerMillis);
                try (Connection c = ds.getConnection()) {
                    audit.recordExecution(c, job.id(), job.attempt(), workerId, pid, startedAt);
                }
                return Outcome.complete();
            });
        }
        KindOptions poison = KindOptions.defaults().maxAttempts(2).timeout(Duration.ofMillis(500))
                .retryPolicy(attempt -> Duration.ZERO);
        builder.handler("poison-throw", AuditArgs.class, poison, job -> {
            throw new IllegalStateException("poison job " + job.id() + " always throws");
        });
        builder.handler("poison-hang", AuditArgs.class, poison, job -> {
            long until = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait(); // ignores its interrupt on purpose
            }
            return Outcome.complete();
        });
        builder.handler("poison-error", AuditArgs.class, poison, job -> {
            throw new StackOverflowError("poison job " + job.id() + " throws an Error");
        });
        Skipjack skipjack = builder.build();
        Runtime.getRuntime().addShutdownHook(new Thread(skipjack::close, "graceful-stop"));
        skipjack.start();
        // The wall clock this JVM sees, so clock-skew tests can check their skew took effect.
        System.out.println("READY " + workerId + " " + System.currentTimeMillis());
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }

    private static Timestamp databaseNow(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT clock_timestamp()"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }

    private static void pause(long millis) throws InterruptedException {
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }

    /**
     * The hand-rolled pattern Skipjack exists to replace: SELECT due rows, then UPDATE them, in two
     * statements with no lock between. Used only as the control that shows the harness can fail.
     */
    private static void runNaive(HikariDataSource ds, String schema, String workerId, int threads, int batch, long pid)
            throws InterruptedException {
        AuditTables audit = new AuditTables(new TableNames(schema, "skipjack_"));
        String jobs = "\"" + schema + "\".skipjack_jobs";
        List<Thread> workers = new ArrayList<>();
        System.out.println("READY " + workerId);
        System.out.flush();
        for (int t = 0; t < threads; t++) {
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
                        Array idArray = c.createArrayOf("bigint", ids.toArray());
                        try (PreparedStatement ps = c.prepareStatement("UPDATE " + jobs
                                + " SET state = 'running', attempt = attempt + 1, claimed_by = ?, lease_until = now()"
                                + " WHERE id = ANY(?)")) {
                            ps.setString(1, workerId);
                            ps.setArray(2, idArray);
                            ps.executeUpdate();
                        }
                        for (long id : ids) {
                            audit.recordExecution(c, id, 1, workerId, pid, null);
                        }
                        try (PreparedStatement ps = c.prepareStatement("UPDATE " + jobs
                                + " SET state = 'completed', finished_at = now(), lease_until = NULL WHERE id = ANY(?)")) {
                            ps.setArray(1, idArray);
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
