package dev.skipjack.internal.complete;

import dev.skipjack.internal.sql.ConnectionHints;
import dev.skipjack.internal.sql.StatementText;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Acknowledges finished executions in batches (F-17): a writer thread (two, so one batch can
 * gather while the other is on its round trip) takes everything queued since its last write and
 * writes it with one statement per kind of outcome. Under load batches
 * grow by themselves; when idle an acknowledgement is written at once. A failed write is retried
 * with backoff; until it succeeds the executions stay tracked, so their leases keep being extended.
 */
public final class BatchCompleter<K> {

    private static final Logger log = LoggerFactory.getLogger(BatchCompleter.class);

    /** Largest batch per write. */
    public static final int MAX_BATCH = 2_000;
    /**
     * The least a batch's text budget ({@link #maxBatchChars}) is lowered to: batches halved while
     * the database was down go through small once it is back, and must not lower it far.
     */
    static final long MIN_LEARNED_BATCH_CHARS = 256 * 1024;
    /** Writes without a failure, on one writer thread, after which a lowered text budget doubles. */
    static final int WRITES_BEFORE_GROWING_BACK = 100;
    /**
     * Writes in flight at once, at most: while one batch is on its round trip the next one gathers
     * and goes out. Each execution is submitted once, so two writes never touch the same job. A
     * database with a single write lock (SQLite) gets one writer.
     */
    public static final int WRITERS = 2;
    /**
     * While another write is in flight, a writer waits until it has at least this many
     * acknowledgements (or the other write is done) before it writes: otherwise the second writer
     * sends a stream of one- and two-job statements, each costing the database a round trip and
     * a commit, exactly when it is busiest.
     */
    static final int MIN_BATCH_BESIDE_ANOTHER_WRITE = 50;
    /** Longest a small batch waits for the other write: the last acknowledgements of a burst must not wait a whole write. */
    private static final long MAX_GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final Duration MAX_RETRY_BACKOFF = Duration.ofSeconds(5);
    /**
     * While a claim round that {@linkplain #take() takes} the queue runs, and for this long after
     * one ended, the writer thread leaves the queue to the rounds. On SQLite a writer beside the
     * rounds only waits for the one write lock (in the busy handler's sleeps, while the rounds
     * keep it), then commits a batch of its own: in a 200,000-job drain it slept 4.5 s of 5.8 s,
     * and the fetcher slept behind it when it got the lock. When rounds stop (the queue is
     * drained, the worker is full) it writes after this.
     */
    static final long CARRIED_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private record Pending<K>(K key, Completion completion) {
    }

    private final DataSource dataSource;
    private final CompletionWriter writer;
    private final Consumer<K> onWritten;
    private final BiFunction<Completion, String, Completion> whenUnstorable;
    private final LinkedBlockingQueue<Pending<K>> queue = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    /** Writer threads still running; the last one out writes whatever is left. */
    private final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger writesInFlight = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean stopping;
    private volatile long giveUpAtNanos = Long.MAX_VALUE;
    /** Set by the last writer thread as it exits; later submissions are written by the submitter. */
    private volatile boolean exited;
    /**
     * Claim rounds that take the queue running now, between {@link #take()} and
     * {@link #roundEnded()}: one completer serves every queue's rounds.
     */
    private final java.util.concurrent.atomic.AtomicInteger roundsRunning = new java.util.concurrent.atomic.AtomicInteger();
    /** When the last such round ended; long ago before any did. */
    private volatile long roundEndedNanos = System.nanoTime() - 2 * CARRIED_GRACE_NANOS;
    /**
     * Characters of outputs and errors one batch carries at most (a single completion's own may
     * pass it): {@link StatementText#MAX_CHARS}, lowered to the text of a halved batch that went
     * through after its batch kept failing, the size a server with a lowered max_allowed_packet
     * takes. Without it every batch of large outputs failed twice before its halves went through.
     */
    private volatile long maxBatchChars = StatementText.MAX_CHARS;

    /**
     * @param onWritten      called with each key once its completion is in the database
     * @param whenUnstorable gives a plainer completion to write instead of one the database refuses
     *                       (with the database's error message)
     */
    public BatchCompleter(DataSource dataSource, CompletionWriter writer, Consumer<K> onWritten,
                          BiFunction<Completion, String, Completion> whenUnstorable, String workerId) {
        this(dataSource, writer, onWritten, whenUnstorable, workerId, WRITERS);
    }

    /**
     * A completer without writer threads: each submission is written by its submitter before
     * {@link #submit} returns, through the same write (with the same fallback for a refused row) as
     * the batches. For the InlineRunner, whose caller reads the job's outcome right after its run.
     */
    public static <K> BatchCompleter<K> onCallingThread(DataSource dataSource, CompletionWriter writer,
                                                        Consumer<K> onWritten,
                                                        BiFunction<Completion, String, Completion> whenUnstorable) {
        return new BatchCompleter<>(dataSource, writer, onWritten, whenUnstorable, "inline", 0, true);
    }

    /** @param writers writer threads, 1 to {@link #WRITERS} */
    public BatchCompleter(DataSource dataSource, CompletionWriter writer, Consumer<K> onWritten,
                          BiFunction<Completion, String, Completion> whenUnstorable, String workerId, int writers) {
        this(dataSource, writer, onWritten, whenUnstorable, workerId, writers, false);
    }

    private BatchCompleter(DataSource dataSource, CompletionWriter writer, Consumer<K> onWritten,
                           BiFunction<Completion, String, Completion> whenUnstorable, String workerId, int writers,
                           boolean onCallingThread) {
        this.dataSource = dataSource;
        this.writer = writer;
        this.onWritten = onWritten;
        this.whenUnstorable = whenUnstorable;
        if (!onCallingThread && (writers < 1 || writers > WRITERS)) {
            throw new IllegalArgumentException("writers must be 1-" + WRITERS + ", got " + writers);
        }
        // No writer thread: as after the last one exited, submitters write their own submissions.
        this.exited = onCallingThread;
        for (int i = 1; i <= writers; i++) {
            Thread t = new Thread(this::run, "skipjack-completer-" + i + "-" + workerId);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    public void start() {
        running.set(threads.size());
        threads.forEach(Thread::start);
    }

    public void submit(K key, Completion completion) {
        queue.add(new Pending<>(key, completion));
        if (exited) {
            // Submitted after the writer thread drained for the last time (a job that finished as
            // shutdown ended): write it here rather than leave it to lease expiry.
            writeRemaining();
        }
    }

    private synchronized void writeRemaining() {
        List<Pending<K>> rest = new ArrayList<>();
        queue.drainTo(rest);
        for (int from = 0, to; from < rest.size(); from = to) {
            to = batchEnd(rest, from, maxBatchChars);
            List<Pending<K>> batch = rest.subList(from, to);
            try {
                write(batch);
                acknowledge(batch);
            } catch (Exception e) {
                log.warn("writing {} late job acknowledgements failed; their leases will expire instead: {}",
                        rest.size() - from, e.toString());
                return;
            }
        }
    }

    /** Writes everything queued so far, then stops; gives up on writes still failing after {@code timeout}. */
    public void stop(Duration timeout) {
        giveUpAtNanos = System.nanoTime() + timeout.toNanos();
        stopping = true;
        threads.forEach(Thread::interrupt);
        try {
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(giveUpAtNanos - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (threads.stream().anyMatch(Thread::isAlive)) {
            log.warn("completer did not finish in {}; {} acknowledgements left to the lease rescuer", timeout, queue.size());
        }
    }

    private void run() {
        try {
            writeUntilStopped();
        } finally {
            if (running.decrementAndGet() == 0) {
                // Order matters: flag first, then drain, so every submission is written by someone.
                exited = true;
                writeRemaining();
            }
        }
    }

    private void writeUntilStopped() {
        List<Pending<K>> batch = new ArrayList<>();
        long backoffMillis = 50;
        int failures = 0;
        boolean halved = false;
        int cleanWrites = 0;
        while (true) {
            try {
                if (batch.isEmpty()) {
                    if (stopping && queue.isEmpty()) {
                        return;
                    }
                    if (leftToRounds()) {
                        TimeUnit.NANOSECONDS.sleep(CARRIED_GRACE_NANOS);
                        continue;
                    }
                    Pending<K> first = stopping ? queue.poll() : queue.poll(1, TimeUnit.SECONDS);
                    if (first == null) {
                        continue;
                    }
                    if (leftToRounds()) {
                        // A round began while this thread waited: the next round takes it.
                        queue.add(first);
                        continue;
                    }
                    batch.add(first);
                }
                if (failures == 0) {
                    gather(batch); // a batch that failed is retried as it is, or halved (below), never grown
                }
                writesInFlight.incrementAndGet();
                try {
                    write(batch);
                } finally {
                    writesInFlight.decrementAndGet();
                }
                if (halved) {
                    learnBudget(batch);
                    halved = false;
                    cleanWrites = 0;
                } else if (++cleanWrites >= WRITES_BEFORE_GROWING_BACK) {
                    growBudgetBack();
                    cleanWrites = 0;
                }
                acknowledge(batch);
                batch.clear();
                backoffMillis = 50;
                failures = 0;
            } catch (InterruptedException e) {
                // stop() interrupts to end the idle wait; the loop drains what is left first.
            } catch (Throwable e) {
                // Errors too (an acknowledgement callback's, a linkage error): this thread ending
                // would drop the batch it holds, whose jobs would then stay running, their leases
                // extended, until their node stops. The batch is written again (the writes are
                // guarded, so a row already written is not changed twice).
                if (stopping && System.nanoTime() - giveUpAtNanos > 0) {
                    return;
                }
                log.warn("writing {} job acknowledgements failed, retrying in {} ms: {}", batch.size(), backoffMillis, e.toString());
                ConnectionHints.note(writer.dialect(), e);
                if (++failures >= 2) {
                    halved |= halve(batch);
                }
                sleepQuietly(backoffMillis);
                backoffMillis = Math.min(backoffMillis * 2, MAX_RETRY_BACKOFF.toMillis());
            }
        }
    }

    /**
     * Puts the second half of a batch that failed twice back in the queue: a batch can fail for its
     * size alone (MySQL and MariaDB refuse a statement over max_allowed_packet, which the text
     * budget keeps batches under at the servers' defaults but not under a lowered one), and
     * retried whole it would fail forever while its jobs stay running. Halving at each failure
     * comes down to a size the server takes, down to one completion (at most 64 KiB of output),
     * and that size becomes the budget ({@link #learnBudget}). With the database down it costs
     * nothing: the batches grow back once writes succeed. Returns whether it split the batch.
     */
    private boolean halve(List<Pending<K>> batch) {
        if (batch.size() <= 1) {
            return false;
        }
        putBackFrom(batch, batch.size() / 2);
        return true;
    }

    /**
     * A halved batch went through: its text is a size the server takes, which becomes the budget of
     * later batches when it is below the budget and above {@link #MIN_LEARNED_BATCH_CHARS}. The
     * failures may not have been about size (the database down; MariaDB's driver reports a
     * statement over max_allowed_packet as the server's error or as a socket error, as the
     * server closes the connection), so the budget grows back ({@link #growBudgetBack}).
     */
    private void learnBudget(List<Pending<K>> batch) {
        long chars = charsOf(batch);
        if (chars >= MIN_LEARNED_BATCH_CHARS && chars < maxBatchChars) {
            maxBatchChars = chars;
            log.info("a batch of job acknowledgements went through halved, after its whole failed: batches carry at"
                    + " most {} characters of outputs and errors from now on", chars);
        }
    }

    /**
     * After {@link #WRITES_BEFORE_GROWING_BACK} writes without a failure, a lowered budget doubles,
     * up to {@link StatementText#MAX_CHARS}: one lowered by failures of another kind comes back,
     * and a server's real limit costs two failed writes per that many batches.
     */
    private void growBudgetBack() {
        long budget = maxBatchChars;
        if (budget < StatementText.MAX_CHARS) {
            maxBatchChars = Math.min(StatementText.MAX_CHARS, budget * 2);
        }
    }

    /** The text budget of a batch now (for tests). */
    long maxBatchChars() {
        return maxBatchChars;
    }

    private static <K> long charsOf(List<Pending<K>> batch) {
        long chars = 0;
        for (Pending<K> p : batch) {
            chars += p.completion().textLength();
        }
        return chars;
    }

    /**
     * The end (exclusive) of the batch that starts at {@code from}: {@link #MAX_BATCH} completions,
     * or fewer when their outputs and errors pass {@code maxChars}; at least one.
     */
    static <K> int batchEnd(List<Pending<K>> pending, int from, long maxChars) {
        return StatementText.end(pending, from, MAX_BATCH, maxChars, p -> p.completion().textLength());
    }

    /** Puts what passes {@link #maxBatchChars} back in the queue, for the next batch. */
    private void keepWithinBudget(List<Pending<K>> batch) {
        int end = batchEnd(batch, 0, maxBatchChars);
        if (end < batch.size()) {
            putBackFrom(batch, end);
        }
    }

    /** Moves {@code batch}'s completions from index {@code from} on back to the queue. */
    private void putBackFrom(List<Pending<K>> batch, int from) {
        List<Pending<K>> rest = batch.subList(from, batch.size());
        requeue(new ArrayList<>(rest));
        rest.clear();
    }

    /**
     * Adds what is queued to {@code batch}; while another write is in flight and the batch is
     * small, keeps gathering until it is large enough, the other write is done, or 5 ms passed.
     * What passes the text budget goes back to the queue.
     */
    private void gather(List<Pending<K>> batch) throws InterruptedException {
        queue.drainTo(batch, MAX_BATCH - batch.size());
        long until = System.nanoTime() + MAX_GATHER_NANOS;
        while (batch.size() < MIN_BATCH_BESIDE_ANOTHER_WRITE && writesInFlight.get() > 0 && !stopping
                && System.nanoTime() - until < 0) {
            Pending<K> next = queue.poll(1, TimeUnit.MILLISECONDS);
            if (next != null) {
                batch.add(next);
                queue.drainTo(batch, MAX_BATCH - batch.size());
            }
        }
        keepWithinBudget(batch);
    }

    /**
     * Tells each written completion's owner. The passes over a batch are methods of their own, not
     * loops in {@link #writeUntilStopped}: its loop runs once per batch, so the JIT never compiles
     * it on the stack with the whole write inlined (see CompletionWriter.Split).
     */
    private void acknowledge(List<Pending<K>> batch) {
        for (Pending<K> p : batch) {
            onWritten.accept(p.key());
        }
    }

    private static <K> List<Completion> completionsOf(List<Pending<K>> batch) {
        List<Completion> completions = new ArrayList<>(batch.size());
        for (Pending<K> p : batch) {
            completions.add(p.completion());
        }
        return completions;
    }

    private void write(List<Pending<K>> batch) throws SQLException {
        try (Connection c = Transactions.autoCommit(dataSource)) {
            write(c, completionsOf(batch));
        }
    }

    /** Writes {@code completions} on {@code c}, in auto-commit. */
    private void write(Connection c, List<Completion> completions) throws SQLException {
        try {
            writer.write(c, completions);
        } catch (SQLException e) {
            if (!isRefusedData(e)) {
                throw e;
            }
            // One row the database refuses must not hold back the others: write them one by
            // one, and the refused one in a plainer form. Rewriting a row that did get written
            // is harmless (the writes are guarded).
            for (Completion completion : completions) {
                try {
                    writer.write(c, List.of(completion));
                } catch (SQLException single) {
                    if (!isRefusedData(single)) {
                        throw single;
                    }
                    log.warn("job {} attempt {}: outcome refused by the database ({}); recording a plainer one",
                            completion.id(), completion.attempt(), single.getMessage());
                    writer.write(c, List.of(whenUnstorable.apply(completion, single.getMessage())));
                }
            }
        }
    }

    /**
     * Takes what is queued, up to a batch, to be written in another statement's transaction
     * ({@link Carried}); null when nothing is queued.
     */
    public Carried take() {
        roundsRunning.incrementAndGet();
        List<Pending<K>> batch = new ArrayList<>();
        queue.drainTo(batch, MAX_BATCH);
        if (batch.isEmpty()) {
            return null;
        }
        keepWithinBudget(batch);
        // Counted as a write in flight, so the writer thread gathers a batch meanwhile instead of
        // sending one- and two-job writes that queue up behind this one's transaction.
        writesInFlight.incrementAndGet();
        return new Carried(batch);
    }

    /** The claim round that called {@link #take()} is over, whatever became of it. */
    public void roundEnded() {
        roundEndedNanos = System.nanoTime();
        roundsRunning.decrementAndGet();
    }

    /** Whether the writer thread leaves the queue to the claim rounds now (not while stopping). */
    private boolean leftToRounds() {
        return !stopping && (roundsRunning.get() > 0 || System.nanoTime() - roundEndedNanos < CARRIED_GRACE_NANOS);
    }

    /**
     * Completions taken from the queue and written in someone else's open transaction: on a
     * database with one write lock, the claim's, so a claim and the completions before it take
     * the lock once and commit once (a completion writer beside the claim waits for the lock, then
     * commits on its own). Exactly one of {@link #committed}, {@link #rolledBack} and
     * {@link #giveBack} is called.
     */
    public final class Carried {

        private final List<Pending<K>> batch;
        private final List<Completion> completions;
        private boolean ended;

        private Carried(List<Pending<K>> batch) {
            this.batch = batch;
            this.completions = completionsOf(batch);
        }

        /** Writes the completions in {@code c}'s open transaction. */
        public void write(Connection c) throws SQLException {
            writer.write(c, completions);
        }

        /** The transaction committed; {@code c} is back in auto-commit: keyed jobs are admitted, owners told. */
        public void committed(Connection c) {
            end();
            writer.afterCommit(c, completions);
            acknowledge(batch);
        }

        /**
         * The transaction rolled back (or the completions were never written): they are written
         * now on {@code c}, in auto-commit, on their own and with the fallback for a refused row;
         * if that fails too, they go back to the queue for the writer thread and its retries.
         */
        public void rolledBack(Connection c) {
            end();
            try {
                BatchCompleter.this.write(c, completions);
                acknowledge(batch);
            } catch (Exception e) {
                log.warn("writing {} job acknowledgements after a claim's transaction failed; the writer retries: {}",
                        batch.size(), e.toString());
                requeue(batch);
            }
        }

        /** The transaction never began: back to the queue, for the writer thread or the next round. */
        public void giveBack() {
            end();
            requeue(batch);
        }

        private void end() {
            if (ended) {
                throw new IllegalStateException("carried completions already committed or rolled back");
            }
            ended = true;
            writesInFlight.decrementAndGet();
        }
    }

    private void requeue(List<Pending<K>> batch) {
        queue.addAll(batch);
        if (exited) {
            writeRemaining();
        }
    }

    /** Refused for a row's data (the dialect says how its database tells), not for the connection. */
    private boolean isRefusedData(SQLException e) {
        return writer.dialect().isRefusedData(e);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            // stop() interrupts; the loop decides whether to keep trying.
        }
    }
}
