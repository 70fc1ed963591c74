package dev.skipjack.audit.process;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.EnqueueResult;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;
import dev.skipjack.SkipjackException;
import dev.skipjack.Unique;
import dev.skipjack.internal.sql.DatabaseDetector;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.audit.EnqueueAudit;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An enqueueing JVM for UniqueAcrossProcessesTest (F-10, issue 12): many of these at once, each
 * with many threads, enqueue the same unique keys, and the {@link EnqueueAudit} records what each
 * caller was told. It runs no worker, so every job it makes stays {@code available} and holds its
 * key for the whole run.
 *
 * <p>Each thread walks the keys {@code k0 .. k<n-1>} in the same order, so the threads of every
 * process meet on the same key at about the same time. Per key it enqueues kind {@value #KIND}
 * with {@code Unique.byKey(key)} either in Skipjack's own transaction or in a transaction of its
 * own on its own connection (the caller's transaction, which reads before it enqueues), which it
 * then commits or rolls back at random. A committing caller writes its audit row inside that
 * transaction, so the row exists exactly when the commit happened; rolled-back and failed calls
 * are recorded after, on their own.
 *
 * <p>Once connected it prints {@code READY <process>} and waits for the start signal in the
 * audit's start table, polled with a deadline, so processes started one after another begin within
 * a poll of each other. It exits 0 when every call is recorded (failed calls included: the test
 * judges them), 1 on anything else. Runs on PostgreSQL and the MySQL family; SQLite is one process
 * by design (docs/backends.md). Arguments: {@link Options}.
 */
public final class UniqueEnqueuer {

    /** The kind every process enqueues. */
    public static final String KIND = "race";

    /** The args: the key again, and who enqueued it, so duplicates carry args that differ. */
    public record Race(String key, String from) {
    }

    private static final JobKind<Race> RACE = JobKind.of(KIND, Race.class);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    private UniqueEnqueuer() {
    }

    /** The unique key given to {@code Unique.byKey} for key number {@code n}. */
    public static String key(int n) {
        return "k" + n;
    }

    /**
     * One process's settings, written by {@link #toArgs} and read by {@link #parse} as
     * {@code --name=value} arguments.
     *
     * @param callerTxPercent share of calls made in a caller's transaction, 0 to 100
     * @param rollbackPercent share of those callers that roll back, 0 to 100
     * @param holdMaxMillis   a caller keeps its transaction open up to this long after the enqueue,
     *                        so others more often queue behind an insert that then rolls back
     *                        (a window widened, not a synchronization)
     */
    public record Options(String jdbcUrl, String user, String schema, String process, int threads, int keys,
                          int callerTxPercent, int rollbackPercent, int holdMaxMillis, long seed) {

        public Options {
            Objects.requireNonNull(jdbcUrl, "--url");
            Objects.requireNonNull(schema, "--schema");
            Objects.requireNonNull(process, "--process");
            if (threads < 1 || keys < 1 || callerTxPercent < 0 || callerTxPercent > 100 || rollbackPercent < 0
                    || rollbackPercent > 100 || holdMaxMillis < 0) {
                throw new IllegalArgumentException("bad enqueuer options " + this);
            }
        }

        /** 16 threads, 50 keys, half the calls in a caller's transaction, half of those rolled back. */
        public static Options of(String jdbcUrl, String schema, String process, long seed) {
            return new Options(jdbcUrl, null, schema, process, 16, 50, 50, 50, 3, seed);
        }

        public Options withThreads(int threads) {
            return new Options(jdbcUrl, user, schema, process, threads, keys, callerTxPercent, rollbackPercent,
                    holdMaxMillis, seed);
        }

        public Options withKeys(int keys) {
            return new Options(jdbcUrl, user, schema, process, threads, keys, callerTxPercent, rollbackPercent,
                    holdMaxMillis, seed);
        }

        public List<String> toArgs() {
            List<String> args = new ArrayList<>(List.of("--url=" + jdbcUrl, "--schema=" + schema, "--process=" + process,
                    "--threads=" + threads, "--keys=" + keys, "--caller-tx-percent=" + callerTxPercent,
                    "--rollback-percent=" + rollbackPercent, "--hold-max-ms=" + holdMaxMillis, "--seed=" + seed));
            if (user != null) {
                args.add("--user=" + user);
            }
            return args;
        }

        /** Reads what {@link #toArgs} wrote; an unknown or malformed argument is an error, not ignored. */
        public static Options parse(String[] argv) {
            String url = null;
            String user = null;
            String schema = null;
            String process = null;
            int threads = 16;
            int keys = 50;
            int callerTx = 50;
            int rollback = 50;
            int hold = 3;
            long seed = 0;
            for (String arg : argv) {
                int eq = arg.indexOf('=');
                if (!arg.startsWith("--") || eq < 0) {
                    throw new IllegalArgumentException("expected --name=value, not '" + arg + "'");
                }
                String value = arg.substring(eq + 1);
                switch (arg.substring(2, eq)) {
                    case "url" -> url = value;
                    case "user" -> user = value;
                    case "schema" -> schema = value;
                    case "process" -> process = value;
                    case "threads" -> threads = Integer.parseInt(value);
                    case "keys" -> keys = Integer.parseInt(value);
                    case "caller-tx-percent" -> callerTx = Integer.parseInt(value);
                    case "rollback-percent" -> rollback = Integer.parseInt(value);
                    case "hold-max-ms" -> hold = Integer.parseInt(value);
                    case "seed" -> seed = Long.parseLong(value);
                    default -> throw new IllegalArgumentException("unknown enqueuer argument '" + arg + "'");
                }
            }
            return new Options(url, user, schema, process, threads, keys, callerTx, rollback, hold, seed);
        }
    }

    public static void main(String[] argv) throws Exception {
        Options o = Options.parse(argv);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(o.jdbcUrl());
        config.setUsername(o.user());
        config.setPassword(System.getenv(AuditedWorker.PASSWORD_ENV));
        // One connection per thread at a time (a caller records a rollback or failure only after
        // closing its transaction's connection), one for the start poll.
        config.setMaximumPoolSize(o.threads() + 1);
        config.setMinimumIdle(o.threads() + 1);
        int exit;
        try (HikariDataSource ds = new HikariDataSource(config)) {
            TableNames names = new TableNames(o.schema(), "skipjack_");
            EnqueueAudit audit = new EnqueueAudit(DatabaseDetector.detect(ds).backend(), names);
            Skipjack skipjack = Skipjack.builder(ds).schema(o.schema()).kind(RACE).build();
            warmUp(ds, o.threads());
            System.out.println("READY " + o.process());
            System.out.flush();
            exit = run(o, ds, skipjack, audit);
            skipjack.close();
        }
        System.exit(exit);
    }

    /** Opens every thread's connection before the start, so the first round is not a connect storm. */
    private static void warmUp(HikariDataSource ds, int threads) throws SQLException {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                held.add(ds.getConnection());
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
    }

    private static int run(Options o, HikariDataSource ds, Skipjack skipjack, EnqueueAudit audit) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> broken = new AtomicReference<>();
        AtomicInteger[] outcomes = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < o.threads(); t++) {
            int thread = t;
            Random random = new Random(Objects.hash(o.seed(), o.process(), thread));
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    for (int k = 0; k < o.keys(); k++) {
                        EnqueueAudit.Outcome outcome = enqueueOnce(o, ds, skipjack, audit, thread, key(k), random);
                        outcomes[outcome.ordinal()].incrementAndGet();
                    }
                } catch (Throwable e) {
                    broken.compareAndSet(null, e);
                }
            }, "enqueuer-" + t);
            th.start();
            threads.add(th);
        }
        audit.awaitStart(ds, START_TIMEOUT);
        start.countDown();
        for (Thread th : threads) {
            th.join();
        }
        System.err.printf("DONE %s committed=%d rolled_back=%d failed=%d%n", o.process(),
                outcomes[0].get(), outcomes[1].get(), outcomes[2].get());
        if (broken.get() != null) {
            System.err.println("an enqueuer thread broke, so its calls are not all recorded:");
            broken.get().printStackTrace();
            return 1;
        }
        return 0;
    }

    /** One call, recorded; throws only when it cannot be recorded. */
    private static EnqueueAudit.Outcome enqueueOnce(Options o, HikariDataSource ds, Skipjack skipjack, EnqueueAudit audit,
                                                    int thread, String key, Random random)
            throws SQLException, InterruptedException {
        JobRequest request = JobRequest.of(RACE, new Race(key, o.process() + "/" + thread),
                EnqueueOptions.defaults().withUnique(Unique.byKey(key)));
        if (random.nextInt(100) >= o.callerTxPercent()) {
            EnqueueResult r;
            try {
                r = skipjack.enqueueWithResult(request);
            } catch (SkipjackException e) {
                return recordAlone(o, ds, audit, thread, key, false, EnqueueAudit.Outcome.FAILED, null, describe(e));
            }
            return recordAlone(o, ds, audit, thread, key, false, EnqueueAudit.Outcome.COMMITTED, r, null);
        }

        boolean rollBack = random.nextInt(100) < o.rollbackPercent();
        int hold = o.holdMaxMillis() == 0 ? 0 : random.nextInt(o.holdMaxMillis() + 1);
        EnqueueResult r = null;
        String error = null;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                // A read first, as a caller's own logic would do: under MariaDB's default REPEATABLE
                // READ it fixes the transaction's snapshot before the key's holder may commit, so
                // Skipjack must find the holder with a locking read, not from this snapshot.
                audit.started(c);
                r = skipjack.enqueueWithResult(c, request);
                if (hold > 0) {
                    Thread.sleep(hold);
                }
                if (rollBack) {
                    c.rollback();
                } else {
                    audit.record(c, o.process(), thread, key, true, EnqueueAudit.Outcome.COMMITTED, r.id(), r.duplicate(), null);
                    c.commit();
                    return EnqueueAudit.Outcome.COMMITTED;
                }
            } catch (SkipjackException | SQLException e) {
                // A failed enqueue (a MariaDB deadlock has rolled the transaction back already) or
                // a failed commit: either way nothing of this transaction is kept.
                error = describe(e);
                c.rollback();
            } finally {
                c.setAutoCommit(true);
            }
        }
        return error != null
                ? recordAlone(o, ds, audit, thread, key, true, EnqueueAudit.Outcome.FAILED, r, error)
                : recordAlone(o, ds, audit, thread, key, true, EnqueueAudit.Outcome.ROLLED_BACK, r, null);
    }

    private static EnqueueAudit.Outcome recordAlone(Options o, HikariDataSource ds, EnqueueAudit audit, int thread,
                                                    String key, boolean inCallerTx, EnqueueAudit.Outcome outcome,
                                                    EnqueueResult r, String error) throws SQLException {
        try (Connection c = ds.getConnection()) {
            audit.record(c, o.process(), thread, key, inCallerTx, outcome, r == null ? null : r.id(),
                    r == null ? null : r.duplicate(), error);
        }
        return outcome;
    }

    /** The failure with the SQL state and vendor code of the first SQLException behind it. */
    private static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                return "SQLState " + s.getSQLState() + ", code " + s.getErrorCode() + ": " + e.getMessage();
            }
        }
        return e.toString();
    }
}
