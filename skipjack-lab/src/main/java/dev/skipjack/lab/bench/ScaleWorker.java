package dev.skipjack.lab.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * One worker JVM of {@code bench --workloads scale}: the drain's client (default configuration, the
 * counting no-op handler) on its own pool, driven over stdin/stdout so the parent times only the
 * drain, not JVM start-up. It first warms up on a queue and kind of its own (so JIT compilation is
 * not what a fresh JVM measures, as the in-process levels are warmed up too), then prints
 * {@code READY}, starts on a {@code START} line, prints its
 * handled count whenever it changed (at most every 5 ms) so the parent knows when every job ran,
 * and stops gracefully on the next line or at end of input. The database password comes in
 * {@code SKIPJACK_BENCH_PASSWORD}, never on the command line.
 *
 * <p>Arguments: jdbcUrl user(or -) schema concurrency index.
 */
public final class ScaleWorker {

    /** The bench's worker JVMs all read the password from the one variable {@link WorkerJvm} sets. */
    static final String PASSWORD_ENV = WorkerJvm.PASSWORD_ENV;
    private static final long REPORT_EVERY_MILLIS = 5;
    static final int WARM_UP_JOBS = 2_000;

    private ScaleWorker() {
    }

    public static void main(String[] argv) throws Exception {
        WorkerJvm jvm = WorkerJvm.fromArgs(argv);
        String schema = jvm.schema();
        int concurrency = jvm.concurrency();
        int index = Integer.parseInt(argv[4]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        LongAdder handled = new LongAdder();
        try (HikariDataSource pool = jvm.pool()) {
            warmUp(pool, schema, concurrency, index);
            Skipjack skipjack = new SkipjackDrain(pool, pool, schema, false).client(concurrency, handled);
            System.out.println("READY");
            System.out.flush();
            if (!"START".equals(in.readLine())) {
                return;
            }
            skipjack.start();
            Thread reporter = new Thread(() -> report(handled), "scale-worker-report");
            reporter.setDaemon(true);
            reporter.start();
            try {
                in.readLine(); // STOP, or the parent went away
            } finally {
                skipjack.stop(Duration.ofSeconds(10));
                reporter.interrupt();
                System.out.println("HANDLED " + handled.sum());
                System.out.flush();
            }
        }
    }

    /** Drains a few jobs of this JVM's own warm-up queue and kind; the parent empties the table afterwards. */
    private static void warmUp(HikariDataSource pool, String schema, int concurrency, int index) throws Exception {
        String queue = "bench-warm-up-" + index;
        String kind = "bench-warm-up-" + index;
        LongAdder done = new LongAdder();
        Skipjack warm = Skipjack.builder(pool).schema(schema).queue(queue, concurrency)
                .handler(JobKind.of(kind, SkipjackDrain.Args.class), job -> {
                    done.increment();
                    return Outcome.complete();
                })
                .build();
        List<JobRequest> requests = new ArrayList<>(WARM_UP_JOBS);
        for (int i = 0; i < WARM_UP_JOBS; i++) {
            requests.add(JobRequest.of(kind, new SkipjackDrain.Args(i), EnqueueOptions.defaults().withQueue(queue)));
        }
        warm.enqueueAll(requests);
        warm.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (done.sum() < WARM_UP_JOBS && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        } finally {
            warm.stop(Duration.ofSeconds(10));
        }
    }

    private static void report(LongAdder handled) {
        long last = -1;
        try {
            while (!Thread.currentThread().isInterrupted()) {
                long now = handled.sum();
                if (now != last) {
                    System.out.println("HANDLED " + now);
                    System.out.flush();
                    last = now;
                }
                Thread.sleep(REPORT_EVERY_MILLIS);
            }
        } catch (InterruptedException stopped) {
            // the worker is stopping
        }
    }
}
