package dev.skipjack.lab.bench;

import dev.skipjack.JobKind;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.cli.DatabaseConnection;
import org.postgresql.PGConnection;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The idle worker of the fresh-JVM pickup latency ({@link PickupLatency}), in a JVM of its own with
 * default flags and a pool of {@link FreshJvm#POOL_SIZE}. It prints {@code READY} once listening,
 * then {@code STARTED <n> <nanoTime>} when the handler of job {@code n} starts; with a producer in
 * this process it also enqueues job {@code n} on each {@code ENQUEUE <n>} line of stdin and prints
 * {@code COMMITTED <n> <nanoTime>} when {@code enqueue} returned. {@code System.nanoTime} is
 * Linux's CLOCK_MONOTONIC, one clock for every process of the machine, so the parent can subtract
 * its own commit times from these start times.
 *
 * <p>Roles: {@code raw-listener}, the raw LISTEN/NOTIFY ceiling: LISTEN on a channel of its own,
 * and on each notification claim with the ceiling's statement and complete, nothing else;
 * {@code worker}, a Skipjack worker with the default configuration; {@code worker-poll}, the same
 * without LISTEN/NOTIFY; {@code worker-with-producer}, a Skipjack worker whose own client enqueues.
 * Arguments: role jdbcUrl user(or -) schema; the password in {@link WorkerJvm#PASSWORD_ENV}.
 */
public final class PickupJvm {

    static final String RAW_CHANNEL = "skipjack_bench_raw";

    private PickupJvm() {
    }

    public static void main(String[] argv) throws Exception {
        String role = argv[0];
        String schema = argv[3];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (DatabaseConnection connection = FreshJvm.openPool(argv[1], argv[2])) {
            DataSource ds = connection.dataSource();
            if (role.equals("raw-listener")) {
                rawListener(ds, schema, in);
                return;
            }
            Skipjack worker = Skipjack.builder(ds).schema(schema).listenNotify(!role.equals("worker-poll"))
                    .queue(SkipjackDrain.QUEUE, 8)
                    .handler(JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class), job -> {
                        started(job.args().n());
                        return Outcome.complete();
                    })
                    .build();
            worker.start();
            try {
                say("READY");
                for (String line; (line = in.readLine()) != null && line.startsWith("ENQUEUE "); ) {
                    int n = Integer.parseInt(line.substring("ENQUEUE ".length()));
                    worker.enqueue(SkipjackDrain.KIND, new SkipjackDrain.Args(n));
                    say("COMMITTED " + n + " " + System.nanoTime());
                }
            } finally {
                worker.stop(Duration.ofSeconds(10));
            }
        }
    }

    private static void started(int n) {
        say("STARTED " + n + " " + System.nanoTime());
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /**
     * The least a NOTIFY-driven worker does: block on the listening connection, and per wake-up
     * claim batches with the ceiling's single statement until none is left, each job "started" as
     * its row is read, then completed by one UPDATE. Ends when stdin closes.
     */
    private static void rawListener(DataSource ds, String schema, BufferedReader in) throws Exception {
        BenchTable table = new BenchTable(ds, Skipjack.builder(ds).schema(schema).build());
        Thread stopper = Thread.currentThread();
        Thread watcher = new Thread(() -> {
            try {
                while (in.readLine() != null) {
                    // the parent closes stdin to stop this process
                }
            } catch (java.io.IOException ignored) {
                // same
            }
            stopper.interrupt();
        }, "stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
        try (Connection listen = ds.getConnection(); Connection work = ds.getConnection();
             PreparedStatement claim = work.prepareStatement(table.sql("ceiling_claim"));
             PreparedStatement complete = work.prepareStatement(table.sql("ceiling_complete"))) {
            try (Statement s = listen.createStatement()) {
                s.execute(table.sql("ceiling_listen"));
            }
            PGConnection notifications = listen.unwrap(PGConnection.class);
            say("READY");
            while (!Thread.currentThread().isInterrupted()) {
                if (notifications.getNotifications(200) == null) {
                    continue;
                }
                while (true) {
                    claim.setString(1, SkipjackDrain.QUEUE);
                    claim.setInt(2, RawCeiling.CLAIM_BATCH);
                    List<Long> ids = new ArrayList<>();
                    try (ResultSet rs = claim.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                            started(argsN(rs.getString(2)));
                        }
                    }
                    if (ids.isEmpty()) {
                        break;
                    }
                    complete.setArray(1, work.createArrayOf("bigint", ids.toArray(new Long[0])));
                    complete.executeUpdate();
                }
            }
        }
    }

    /** The n of the bench's own payload {@code {"n": 12}}. */
    static int argsN(String json) {
        int colon = json.indexOf(':');
        return Integer.parseInt(json.substring(colon + 1, json.indexOf('}')).trim());
    }
}
