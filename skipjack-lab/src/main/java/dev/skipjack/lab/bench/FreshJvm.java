package dev.skipjack.lab.bench;

import dev.skipjack.Skipjack;
import dev.skipjack.cli.DatabaseConnection;
import dev.skipjack.cli.DatabaseUrl;

import java.io.PrintWriter;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * One phase of one side of the fresh-JVM rounds ({@link FreshRounds}), run in a JVM started for it
 * alone, as an outsider measures a queue: a new process, default JVM flags, a pool of
 * {@link #POOL_SIZE} (HikariCP's default size), filled before the clock starts. It prints
 * {@code RATE <jobs per second> <CPU µs per job> <window CPU µs per job> <window JIT CPU µs per job>}
 * on stdout and exits; everything else goes to stderr. The first CPU figure is the whole JVM's
 * over the phase, building the client included, JIT compilation and garbage collection included;
 * the other two are the JVM's and its JIT compiler threads' inside the timed window alone
 * ({@link PhaseWindow}; -1 where they cannot be read).
 *
 * <p>Phases: {@code ceiling-enqueue} and {@code ceiling-drain}, the raw SQL loop of
 * {@link RawCeiling}; {@code enqueue}, a producer-only Skipjack client's one {@code enqueueAll};
 * {@code drain}, a Skipjack worker with the default configuration and one queue, timed from
 * {@code start()} until every job is terminal in the database; {@code enqueue-latency},
 * {@link EnqueueLatency} with {@code jobs} samples, printed as {@code FIELDS <RESULT fields>}.
 * The parent empties and fills the
 * table between phases. Arguments: phase jdbcUrl user(or -) schema jobs concurrency; the password
 * comes in {@link WorkerJvm#PASSWORD_ENV}.
 */
public final class FreshJvm {

    /** The pool a user gets by default (HikariCP's maximumPoolSize), for both sides. */
    public static final int POOL_SIZE = 10;

    private FreshJvm() {
    }

    public static void main(String[] argv) throws Exception {
        String phase = argv[0];
        String schema = argv[3];
        int jobs = Integer.parseInt(argv[4]);
        int concurrency = Integer.parseInt(argv[5]);
        try (DatabaseConnection connection = openPool(argv[1], argv[2])) {
            DataSource ds = connection.dataSource();
            if (phase.equals("enqueue-latency")) {
                System.out.println("FIELDS " + new EnqueueLatency(ds, schema).run(jobs).fields());
                return;
            }
            long cpuBefore = PhaseWindow.processCpuNanos();
            double rate = switch (phase) {
                case "ceiling-enqueue" -> ceiling(ds, schema).enqueue(jobs, SkipjackDrain.QUEUE, SkipjackDrain.KIND);
                case "ceiling-drain" -> ceiling(ds, schema).drain(jobs, SkipjackDrain.QUEUE);
                case "enqueue" -> SkipjackDrain.enqueue(SkipjackDrain.producer(ds, schema), jobs);
                case "drain" -> {
                    LongAdder handled = new LongAdder();
                    Skipjack worker = new SkipjackDrain(ds, schema).client(concurrency, handled);
                    yield SkipjackDrain.drain(worker, handled, new BenchTable(ds, worker), jobs);
                }
                default -> throw new IllegalArgumentException("unknown phase " + phase);
            };
            // This JVM's CPU over the phase, every thread's (JIT and GC too), from the filled pool on.
            double cpuMicrosPerJob = (PhaseWindow.processCpuNanos() - cpuBefore) / 1e3 / jobs;
            System.out.println(String.format(Locale.ROOT, "RATE %.1f %.2f %.2f %.2f", rate, cpuMicrosPerJob,
                    PhaseWindow.cpuMicrosPerJob(jobs), PhaseWindow.jitMicrosPerJob(jobs)));
            System.out.flush();
        }
    }

    private static RawCeiling ceiling(DataSource ds, String schema) {
        return new RawCeiling(new BenchTable(ds, Skipjack.builder(ds).schema(schema).build()));
    }

    /**
     * The pool of a fresh JVM on {@code jdbcUrl} as {@code user} ({@code -} for none; the password
     * in {@link WorkerJvm#PASSWORD_ENV}), every connection opened before the clock starts, as a
     * long-running service has them. Says which database on stderr.
     */
    static DatabaseConnection openPool(String jdbcUrl, String user) throws SQLException {
        DatabaseUrl url = new DatabaseUrl(jdbcUrl, user.equals("-") ? null : user, System.getenv(WorkerJvm.PASSWORD_ENV));
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        DatabaseConnection connection = DatabaseConnection.open(Optional.of(url), POOL_SIZE, err);
        fillPool(connection.dataSource());
        return connection;
    }

    private static void fillPool(DataSource ds) throws SQLException {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < POOL_SIZE; i++) {
                held.add(ds.getConnection());
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
    }
}
