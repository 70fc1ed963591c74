package dev.skipjack.internal.complete;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Acknowledges finished executions in batches (F-17): one writer thread takes everything queued
 * since its last write and writes it with one statement per kind of outcome. Under load batches
 * grow by themselves; when idle an acknowledgement is written at once. A failed write is retried
 * with backoff; until it succeeds the executions stay tracked, so their leases keep being extended.
 */
public final class BatchCompleter<K> {

    private static final Logger log = LoggerFactory.getLogger(BatchCompleter.class);

    /** Largest batch per write. */
    static final int MAX_BATCH = 2_000;
    private static final Duration MAX_RETRY_BACKOFF = Duration.ofSeconds(5);

    private record Pending<K>(K key, Completion completion) {
    }

    private final DataSource dataSource;
    private final CompletionWriter writer;
    private final Consumer<K> onWritten;
    private final LinkedBlockingQueue<Pending<K>> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    private volatile long giveUpAtNanos = Long.MAX_VALUE;

    /**
     * @param onWritten called with each key once its completion is in the database
     */
    public BatchCompleter(DataSource dataSource, CompletionWriter writer, Consumer<K> onWritten, String workerId) {
        this.dataSource = dataSource;
        this.writer = writer;
        this.onWritten = onWritten;
        this.thread = new Thread(this::run, "skipjack-completer-" + workerId);
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    public void submit(K key, Completion completion) {
        queue.add(new Pending<>(key, completion));
    }

    /** Writes everything queued so far, then stops; gives up on writes still failing after {@code timeout}. */
    public void stop(Duration timeout) {
        giveUpAtNanos = System.nanoTime() + timeout.toNanos();
        stopping = true;
        thread.interrupt();
        try {
            thread.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("completer did not finish in {}; {} acknowledgements left to the lease rescuer", timeout, queue.size());
        }
    }

    private void run() {
        List<Pending<K>> batch = new ArrayList<>();
        long backoffMillis = 50;
        while (true) {
            try {
                if (batch.isEmpty()) {
                    if (stopping && queue.isEmpty()) {
                        return;
                    }
                    Pending<K> first = stopping ? queue.poll() : queue.poll(1, TimeUnit.SECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                }
                queue.drainTo(batch, MAX_BATCH - batch.size());
                write(batch);
                for (Pending<K> p : batch) {
                    onWritten.accept(p.key());
                }
                batch.clear();
                backoffMillis = 50;
            } catch (InterruptedException e) {
                // stop() interrupts to end the idle wait; the loop drains what is left first.
            } catch (Exception e) {
                if (stopping && System.nanoTime() - giveUpAtNanos > 0) {
                    return;
                }
                log.warn("writing {} job acknowledgements failed, retrying in {} ms: {}", batch.size(), backoffMillis, e.toString());
                sleepQuietly(backoffMillis);
                backoffMillis = Math.min(backoffMillis * 2, MAX_RETRY_BACKOFF.toMillis());
            }
        }
    }

    private void write(List<Pending<K>> batch) throws SQLException {
        List<Completion> completions = new ArrayList<>(batch.size());
        for (Pending<K> p : batch) {
            completions.add(p.completion());
        }
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            writer.write(c, completions);
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            // stop() interrupts; the loop decides whether to keep trying.
        }
    }
}
