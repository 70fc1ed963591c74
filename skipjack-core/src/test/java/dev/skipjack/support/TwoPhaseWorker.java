package dev.skipjack.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.Job;
import dev.skipjack.Outcome;
import dev.skipjack.QueueOptions;
import dev.skipjack.Skipjack;
import dev.skipjack.TwoPhaseJobHandler;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A worker JVM for TwoPhaseCommitTest: a two-phase kind whose database work is a {@code ledger}
 * row and whose outside system is the {@code external_effects} table, written on a connection of
 * its own (so it is not part of the prepared transaction). It halts the JVM — no shutdown hooks,
 * like SIGKILL — at the step named by its crash point.
 *
 * <p>Arguments: jdbcUrl schema workerId crashPoint(none|before-prepare|after-prepare|after-external) leaseMillis.
 */
public final class TwoPhaseWorker {

    public record Payment(int amount) {
    }

    public static void main(String[] argv) throws Exception {
        String url = argv[0];
        String schema = argv[1];
        String workerId = argv[2];
        String crashPoint = argv[3];
        long leaseMillis = Long.parseLong(argv[4]);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(6);
        HikariDataSource ds = new HikariDataSource(config);
        String q = "\"" + schema + "\".";

        Skipjack skipjack = Skipjack.builder(ds)
                .schema(schema)
                .workerId(workerId)
                .lease(Duration.ofMillis(leaseMillis))
                .pollInterval(Duration.ofMillis(50))
                .rescueInterval(Duration.ofMillis(200))
                .queue(new QueueOptions("default", 1, 1))
                .twoPhaseHandler("pay", Payment.class, new TwoPhaseJobHandler<Payment>() {
                    @Override
                    public Outcome prepare(Job<Payment> job, Connection tx) throws Exception {
                        try (PreparedStatement ps = tx.prepareStatement(
                                "INSERT INTO " + q + "ledger (job_id, attempt, amount) VALUES (?, ?, ?)")) {
                            ps.setLong(1, job.id());
                            ps.setInt(2, job.attempt());
                            ps.setInt(3, job.args().amount());
                            ps.executeUpdate();
                        }
                        crashIf(crashPoint, "before-prepare");
                        return Outcome.complete();
                    }

                    @Override
                    public void callExternal(Job<Payment> job) throws Exception {
                        crashIf(crashPoint, "after-prepare");
                        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO " + q + "external_effects (job_id, attempt) VALUES (?, ?)")) {
                            ps.setLong(1, job.id());
                            ps.setInt(2, job.attempt());
                            ps.executeUpdate();
                        }
                        crashIf(crashPoint, "after-external");
                    }

                    @Override
                    public boolean externalEffectHappened(long jobId, int attempt) throws Exception {
                        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                                "SELECT count(*) FROM " + q + "external_effects WHERE job_id = ? AND attempt = ?")) {
                            ps.setLong(1, jobId);
                            ps.setInt(2, attempt);
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                return rs.getLong(1) > 0;
                            }
                        }
                    }
                })
                .build();
        skipjack.start();
        System.out.println("READY " + workerId);
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static void crashIf(String crashPoint, String here) {
        if (crashPoint.equals(here)) {
            Runtime.getRuntime().halt(137);
        }
    }
}
