package dev.skipjack.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.Outcome;
import dev.skipjack.QueueOptions;
import dev.skipjack.Skipjack;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * leaseMillis handlerMillis.
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

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(concurrency + 6);
        HikariDataSource ds = new HikariDataSource(config);
        long pid = ProcessHandle.current().pid();

        if (mode.equals("naive")) {
            runNaive(ds, schema, workerId, concurrency, batch, pid);
            return;
        }
        Skipjack.Builder builder = Skipjack.builder(ds)
                .schema(schema)
                .workerId(workerId)
                .lease(Duration.ofMillis(leaseMillis))
                .pollInterval(Duration.ofMillis(50))
                .rescueInterval(Duration.ofMillis(500))
                .queue(new QueueOptions("default", concurrency, batch));
        if (mode.equals("transactional")) {
            builder.transactionalHandler("audit", AuditArgs.class, (job, tx) -> {
                pause(handlerMillis);
                audit(tx, schema, job.id(), job.attempt(), workerId, pid);
                return Outcome.complete();
            });
        } else {
            builder.handler("audit", AuditArgs.class, job -> {
                pause(handlerMillis);
                try (Connection c = ds.getConnection()) {
                    audit(c, schema, job.id(), job.attempt(), workerId, pid);
                }
                return Outcome.complete();
            });
        }
        Skipjack skipjack = builder.build();
        skipjack.start();
        System.out.println("READY " + workerId);
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }

    static void audit(Connection c, String schema, long jobId, int attempt, String workerId, long pid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO \"" + schema + "\".audit (job_id, attempt, worker, pid) VALUES (?, ?, ?, ?)")) {
            ps.setLong(1, jobId);
            ps.setInt(2, attempt);
            ps.setString(3, workerId);
            ps.setLong(4, pid);
            ps.executeUpdate();
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
                            audit(c, schema, id, 1, workerId, pid);
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
