package dev.skipjack.lab.bench;

import dev.skipjack.Backend;
import dev.skipjack.JobKind;
import dev.skipjack.Skipjack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * BENCHMARK.md's latency with the worker in a fresh JVM of its own ({@link PickupJvm}): one job at a
 * time, each in its own committed transaction, a gap apart; latency is the handler's start minus
 * the moment the enqueue's commit returned, both read from CLOCK_MONOTONIC (floored at 0, since the
 * wake-up can beat the acknowledgement). Producers: this JVM, another process than the worker's
 * (the NOTIFY path, or polling); or the worker's own client, the same process. The ceiling is a
 * raw LISTEN/NOTIFY worker in a fresh JVM woken by a raw insert and {@code pg_notify} from this JVM.
 */
public final class PickupLatency {

    /** Who enqueues, and how the worker learns of it. */
    public enum Mode {
        /** The raw LISTEN/NOTIFY ceiling, producer in another process. */
        CEILING("raw-listener"),
        /** A Skipjack worker woken by NOTIFY, producer in another process. */
        OTHER_PROCESS("worker"),
        /** A Skipjack worker whose own client enqueues: the same process. */
        SAME_PROCESS("worker-with-producer"),
        /** A Skipjack worker without LISTEN/NOTIFY, producer in another process: it polls. */
        POLL("worker-poll");

        final String role;

        Mode(String role) {
            this.role = role;
        }
    }

    private final DataSource dataSource;
    private final BenchTable table;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String schema;

    public PickupLatency(DataSource dataSource, BenchTable table, String jdbcUrl, String user, String password,
                         String schema) {
        this.dataSource = dataSource;
        this.table = table;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.schema = schema;
    }

    public IdleLatency.Percentiles run(Mode mode, int samples, Duration gap) throws Exception {
        if (mode == Mode.CEILING && table.backend() != Backend.POSTGRESQL) {
            throw new IllegalArgumentException("the LISTEN/NOTIFY ceiling needs PostgreSQL");
        }
        table.empty();
        Path log = Files.createTempFile("skipjack-bench-pickup-", ".err");
        ProcessBuilder pb = WorkerJvm.java(PickupJvm.class, List.of(), password,
                List.of(mode.role, jdbcUrl, user == null ? "-" : user, schema));
        pb.redirectError(log.toFile());
        Process worker = pb.start();
        Arrivals started = new Arrivals();
        Arrivals committed = new Arrivals();
        try (Writer toWorker = new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8)) {
            BufferedReader fromWorker = new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
            if (!"READY".equals(fromWorker.readLine())) {
                throw new IllegalStateException("the " + mode.role + " JVM did not start; see " + log + ":\n" + Files.readString(log));
            }
            Thread reader = new Thread(() -> read(fromWorker, started, committed), "pickup-worker-stdout");
            reader.setDaemon(true);
            reader.start();
            Producer producer = producer(mode, toWorker, committed);
            // A first job, not measured: the worker settles into idling (first poll done, listener on).
            producer.enqueue(-1);
            started.await(-1, log);
            double[] millis = new double[samples];
            for (int i = 0; i < samples; i++) {
                Thread.sleep(gap.toMillis());
                producer.enqueue(i);
                long at = started.await(i, log);
                long commit = committed.await(i, log);
                millis[i] = Math.max(0, at - commit) / 1e6;
            }
            Arrays.sort(millis);
            return new IdleLatency.Percentiles(IdleLatency.percentile(millis, 0.50), IdleLatency.percentile(millis, 0.99),
                    millis[millis.length - 1]);
        } finally {
            if (!worker.waitFor(20, TimeUnit.SECONDS)) {
                worker.destroyForcibly();
            }
        }
    }

    /** Enqueues job {@code n} and, for a producer in this JVM, records when its commit returned. */
    private interface Producer {
        void enqueue(int n) throws Exception;
    }

    private Producer producer(Mode mode, Writer toWorker, Arrivals committed) throws Exception {
        switch (mode) {
            case SAME_PROCESS:
                return n -> {
                    toWorker.write("ENQUEUE " + n + "\n");
                    toWorker.flush();
                };
            case CEILING: {
                String insert = table.sql("ceiling_insert");
                String notify = table.sql("ceiling_notify");
                return n -> {
                    try (Connection c = dataSource.getConnection()) {
                        c.setAutoCommit(false);
                        try (PreparedStatement ins = c.prepareStatement(insert); PreparedStatement not = c.prepareStatement(notify)) {
                            ins.setString(1, SkipjackDrain.QUEUE);
                            ins.setString(2, SkipjackDrain.KIND);
                            ins.setArray(3, c.createArrayOf("text", new String[] {"{\"n\": " + n + "}"}));
                            ins.executeUpdate();
                            not.setString(1, PickupJvm.RAW_CHANNEL);
                            not.execute();
                            c.commit();
                            committed.put(n, System.nanoTime());
                        } finally {
                            c.setAutoCommit(true);
                        }
                    }
                };
            }
            default: {
                Skipjack client = Skipjack.builder(dataSource).schema(schema)
                        .kind(JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class)).build();
                return n -> {
                    client.enqueue(SkipjackDrain.KIND, new SkipjackDrain.Args(n));
                    committed.put(n, System.nanoTime());
                };
            }
        }
    }

    private static void read(BufferedReader fromWorker, Arrivals started, Arrivals committed) {
        try {
            for (String l; (l = fromWorker.readLine()) != null; ) {
                String[] f = l.split(" ");
                if (f.length == 3 && (f[0].equals("STARTED") || f[0].equals("COMMITTED"))) {
                    (f[0].equals("STARTED") ? started : committed).put(Integer.parseInt(f[1]), Long.parseLong(f[2]));
                }
            }
        } catch (IOException | NumberFormatException ended) {
            // the worker ended
        }
    }

    /** Times of jobs by number, the first one kept; {@link #await} blocks (no spinning: two cores). */
    private static final class Arrivals {

        private final Map<Integer, Long> times = new HashMap<>();

        synchronized void put(int n, long nanos) {
            times.putIfAbsent(n, nanos);
            notifyAll();
        }

        synchronized long await(int n, Path log) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Long at;
            while ((at = times.get(n)) == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("job " + n + " was not reported within 30 s; see " + log);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return at;
        }
    }

    public static List<Mode> modesFor(Backend backend) {
        return backend == Backend.POSTGRESQL ? List.of(Mode.CEILING, Mode.OTHER_PROCESS, Mode.SAME_PROCESS, Mode.POLL)
                : List.of(Mode.OTHER_PROCESS, Mode.SAME_PROCESS);
    }
}
