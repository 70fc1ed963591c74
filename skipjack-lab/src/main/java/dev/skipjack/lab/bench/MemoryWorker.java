package dev.skipjack.lab.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.JobKind;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The worker JVM of {@code bench --workloads memory}: a client with the default configuration and
 * one queue, whose handler blocks on a latch (jobs with a negative {@code n} complete at once: the
 * warm-up), driven over stdin/stdout. It prints {@code READY} once started; on {@code MEASURE k}
 * it waits until the warm-up job ran and {@code k} jobs are running in their handlers, collects the
 * garbage, and prints {@code MEASURED k heap_bytes rss_kb threads}; on {@code RELEASE} (or end of
 * input) it lets every handler finish and stops. The database password comes in
 * {@code SKIPJACK_BENCH_PASSWORD}, never on the command line.
 *
 * <p>Arguments: jdbcUrl user(or -) schema concurrency.
 */
public final class MemoryWorker {

    static final String KIND = "bench-memory";
    private static final long WAIT_MINUTES = 2;
    /** Full collections before a reading: the second also frees what the first only finalized. */
    private static final int COLLECTIONS = 3;

    private MemoryWorker() {
    }

    public static void main(String[] argv) throws Exception {
        WorkerJvm jvm = WorkerJvm.fromArgs(argv);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        CountDownLatch release = new CountDownLatch(1);
        LongAdder running = new LongAdder();
        LongAdder warmedUp = new LongAdder();
        try (HikariDataSource pool = jvm.pool()) {
            Skipjack worker = Skipjack.builder(pool).schema(jvm.schema()).queue(SkipjackDrain.QUEUE, jvm.concurrency())
                    .handler(JobKind.of(KIND, SkipjackDrain.Args.class), job -> {
                        if (job.args().n() < 0) {
                            warmedUp.increment();
                            return Outcome.complete();
                        }
                        running.increment();
                        release.await(); // held until measured: a running job, as a slow handler would be
                        return Outcome.complete();
                    })
                    .build();
            worker.start();
            try {
                System.out.println("READY");
                System.out.flush();
                for (String line; (line = in.readLine()) != null && line.startsWith("MEASURE "); ) {
                    long k = Long.parseLong(line.substring("MEASURE ".length()));
                    awaitAtLeast(warmedUp, 1);
                    awaitAtLeast(running, k);
                    for (int i = 0; i < COLLECTIONS; i++) {
                        System.gc();
                    }
                    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                    System.out.println("MEASURED " + k + " " + heap + " " + rssKb() + " "
                            + ManagementFactory.getThreadMXBean().getThreadCount());
                    System.out.flush();
                }
            } finally {
                release.countDown();
                worker.stop(Duration.ofSeconds(10));
            }
        }
    }

    private static void awaitAtLeast(LongAdder counter, long target) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(WAIT_MINUTES);
        while (counter.sum() < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(counter.sum() + " of " + target + " jobs after " + WAIT_MINUTES + " min");
            }
            Thread.sleep(1);
        }
    }

    /** This process's resident set in kB ({@code VmRSS} of /proc/self/status), or -1 off Linux. */
    static long rssKb() {
        try {
            return vmRssKb(Files.readAllLines(Path.of("/proc/self/status")));
        } catch (IOException | UnsupportedOperationException noProc) {
            return -1;
        }
    }

    /** The {@code VmRSS:  12345 kB} line of a /proc status file, in kB; -1 if absent. */
    static long vmRssKb(List<String> status) {
        for (String line : status) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring("VmRSS:".length()).replace("kB", "").strip());
            }
        }
        return -1;
    }
}
