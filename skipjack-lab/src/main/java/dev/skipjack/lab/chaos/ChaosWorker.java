package dev.skipjack.lab.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.QueueOptions;
import dev.skipjack.Skipjack;
import dev.skipjack.internal.audit.AuditTables;
import dev.skipjack.internal.sql.TableNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One worker JVM of {@code skipjack-lab chaos}, with Skipjack's default lease and intervals. Its
 * {@code chaos} handler sleeps a few milliseconds and writes one audit row per execution (lease
 * mode: its own transaction; transactional mode: the job's); {@code chaos-poison} always throws.
 * SIGTERM stops it gracefully. The database password comes in {@code SKIPJACK_CHAOS_PASSWORD},
 * never on the command line.
 *
 * <p>Arguments: jdbcUrl user(or -) schema mode workerId concurrency.
 */
public final class ChaosWorker {

    public record Work(int n) {
    }

    static final String APPLICATION_NAME = "skipjack-chaos ";

    public static void main(String[] argv) throws Exception {
        String url = argv[0];
        String user = argv[1].equals("-") ? null : argv[1];
        String schema = argv[2];
        String mode = argv[3];
        String workerId = argv[4];
        int concurrency = Integer.parseInt(argv[5]);

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(System.getenv("SKIPJACK_CHAOS_PASSWORD"));
        config.setMaximumPoolSize(concurrency + 6);
        config.addDataSourceProperty("ApplicationName", APPLICATION_NAME + schema);
        HikariDataSource ds = new HikariDataSource(config);
        long pid = ProcessHandle.current().pid();
        AuditTables audit = new AuditTables(new TableNames(schema, "skipjack_"));
        long clockOffsetMillis;
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT clock_timestamp()");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            clockOffsetMillis = rs.getTimestamp(1).getTime() - System.currentTimeMillis();
        }

        Skipjack.Builder builder = Skipjack.builder(ds)
                .schema(schema)
                .workerId(workerId)
                .shutdownTimeout(Duration.ofSeconds(5))
                .queue(new QueueOptions("default", concurrency, 10));
        if (mode.equals("transactional")) {
            builder.transactionalHandler("chaos", Work.class, (job, tx) -> {
                Thread.sleep(ThreadLocalRandom.current().nextInt(2, 20));
                // started_at null: the audit uses the job transaction's now(), the claim time.
                audit.recordExecution(tx, job.id(), job.attempt(), workerId, pid, null);
                return Outcome.complete();
            });
        } else {
            builder.handler("chaos", Work.class, job -> {
                Timestamp startedAt = new Timestamp(System.currentTimeMillis() + clockOffsetMillis);
                Thread.sleep(ThreadLocalRandom.current().nextInt(2, 20));
                try (Connection c = ds.getConnection()) {
                    audit.recordExecution(c, job.id(), job.attempt(), workerId, pid, startedAt);
                }
                return Outcome.complete();
            });
        }
        builder.handler("chaos-poison", Work.class, KindOptions.defaults().retryPolicy(a -> Duration.ZERO), job -> {
            throw new IllegalStateException("poison job " + job.id());
        });
        Skipjack skipjack = builder.build();
        Runtime.getRuntime().addShutdownHook(new Thread(skipjack::close, "graceful-stop"));
        skipjack.start();
        System.out.println("READY " + workerId);
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
