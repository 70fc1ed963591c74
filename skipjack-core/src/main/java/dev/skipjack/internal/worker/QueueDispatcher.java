package dev.skipjack.internal.worker;

import dev.skipjack.internal.threads.WorkerThreads;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.pause.PausedQueues;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one fetcher of a queue in this process (F-15): claims batches sized to the queue's free
 * slots plus a small local buffer and hands each job to a job thread; a job thread that finishes
 * takes the next buffered job itself, without a round trip or a hand-off. A large claim is split
 * into up to {@link #CLAIM_PARALLELISM} claim statements sent at once on separate connections, so
 * one queue can use more than one database core; the round's jobs are merged into claim order
 * before any of them starts. Transactional kinds are claimed by the job threads themselves, one
 * job per transaction, paced by the same slots.
 */
public final class QueueDispatcher {

    private static final Logger log = LoggerFactory.getLogger(QueueDispatcher.class);

    /** Most transactional jobs one job thread runs before it gives its slot back to the fetcher. */
    static final int TRANSACTIONAL_RUN_LENGTH = 100;
    private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(5);
    /** The local buffer holds about the jobs this process finishes in this long, at most one round's worth. */
    static final Duration BUFFER_WINDOW = Duration.ofMillis(50);
    /**
     * Claim statements one round may send at once. A claim's cost in the database is mostly per
     * row (the update of each claimed row), so one statement at a time caps a queue at one
     * database core however large the batch; smaller statements side by side finish sooner while
     * the database has cores to spare. The round waits for all of them and merges their jobs before
     * starting any: statements in flight together can finish in any order, and each takes rows the
     * other left, so only the merged round is in priority order (DelayedAndPriorityTest).
     */
    static final int CLAIM_PARALLELISM = 4;
    /**
     * A round is split only when every statement still gets at least this many jobs: below that
     * the statement's fixed cost (round trip, planning, commit) outweighs the rows.
     */
    static final int MIN_JOBS_PER_CLAIM = 50;
    /**
     * Finished jobs whose acknowledgement may wait, beyond the running and buffered ones, before
     * the fetcher stops claiming: two full completer batches. Claiming on while acknowledgements
     * fall behind would leave ever more jobs running in the database, until their leases expired
     * and jobs that already ran were rescued and run again.
     */
    static final int MAX_UNACKNOWLEDGED = BatchCompleter.MAX_BATCH * BatchCompleter.WRITERS;
    /** How soon a fetcher held back by unacknowledged jobs looks again. */
    private static final long ACK_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /**
     * How often the finish rate behind the buffer's size is measured. Short, so that a worker
     * starting on a backlog grows its claims within a few round trips instead of claiming one
     * slot's worth at a time for the first tenth of a second.
     */
    private static final long RATE_SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /**
     * How much the buffer target grows when the last claim's jobs all finished before the next
     * round: four times, so a worker starting on a backlog of short jobs reaches full rounds in
     * three round trips (eight slots: 8, 32, 128, 400 jobs) instead of five.
     */
    private static final int STARVED_GROWTH = 4;

    /** A claimed lease-mode job and its execution, from claim until a job thread takes it. */
    private record Buffered(ClaimedJob job, Execution execution) {
    }

    private final WorkerContext ctx;
    private final JobExecutor executor;
    private final String queue;
    private final int concurrency;
    private final int maxBatch;
    private final Set<String> transactionalKinds;
    /** Kinds the lease claim leaves alone: transactional ones and ones this client only declares. */
    private final Set<String> notLeaseClaimed;
    private final Duration pollInterval;
    private final PausedQueues pausedQueues;
    private final Semaphore slots;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Thread thread;
    /** Sends the second and later claim statements of a round; created on first use. */
    private ExecutorService claimHelper;
    /** Claimed jobs waiting for a slot; guarded by {@link #lock}. */
    private final ArrayDeque<Buffered> buffer = new ArrayDeque<>();
    /** Jobs the buffer should hold; guarded by {@link #lock}. */
    private int bufferTarget;
    private final LongAdder finishedJobs = new LongAdder();
    /** At most this many held: running, buffered, and finished awaiting acknowledgement. */
    private final int maxHeld;
    private long rateSampledAt = System.nanoTime();
    private long rateSampledCount;
    private boolean wakeRequested;
    /** Size of the last claim round, when it got every job it asked for (0 otherwise); fetcher thread only. */
    private int lastFullClaim;
    private volatile boolean transactionalWorkLikely = true;
    /** False after a lease-mode claim came back empty: transactional runs may then take every slot. */
    private volatile boolean leaseWorkLikely = true;
    private volatile boolean running;

    public QueueDispatcher(WorkerContext ctx, String queue, int concurrency, int maxBatch, Set<String> transactionalKinds,
                        Set<String> kindsRunElsewhere, Duration pollInterval, PausedQueues pausedQueues) {
        this.ctx = ctx;
        this.executor = new JobExecutor(ctx);
        this.queue = queue;
        this.concurrency = concurrency;
        this.maxBatch = maxBatch;
        this.transactionalKinds = Set.copyOf(transactionalKinds);
        Set<String> skipped = new java.util.TreeSet<>(transactionalKinds);
        skipped.addAll(kindsRunElsewhere);
        this.notLeaseClaimed = Set.copyOf(skipped);
        this.pollInterval = pollInterval;
        this.pausedQueues = pausedQueues;
        this.slots = new Semaphore(concurrency);
        this.maxHeld = concurrency + maxBatch * CLAIM_PARALLELISM + MAX_UNACKNOWLEDGED;
        this.thread = new Thread(this::loop, "skipjack-fetcher-" + queue);
        this.thread.setDaemon(true);
    }

    public String queue() {
        return queue;
    }

    public void start() {
        running = true;
        thread.start();
    }

    /** Stops claiming; jobs already claimed keep running. */
    public void requestStop() {
        running = false;
        wake();
    }

    /** Waits, until the deadline at most, for the fetcher thread to end its last claim and exit. */
    public void awaitStopped(long deadlineNanos) throws InterruptedException {
        long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        thread.join(Math.max(1, leftMillis));
    }

    /** Waits until every slot is free or the deadline passes; true when all jobs finished. */
    public boolean awaitIdle(long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (!slots.tryAcquire(concurrency, Math.max(0, left), TimeUnit.NANOSECONDS)) {
            return false;
        }
        slots.release(concurrency);
        return true;
    }

    /** Asks the fetcher to look for work now (new jobs, freed slots). */
    public void wake() {
        lock.lock();
        try {
            wakeRequested = true;
            transactionalWorkLikely = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        try {
            fetchUntilStopped();
        } finally {
            handBackBuffered();
            if (claimHelper != null) {
                claimHelper.shutdown();
            }
        }
    }

    private void fetchUntilStopped() {
        long backoffMillis = 100;
        while (running) {
            try {
                int claimed = fetchOnce();
                backoffMillis = 100;
                if (heldBackByAcknowledgements()) {
                    awaitWake(ACK_WAIT_NANOS);
                } else if (claimed == 0 || wanted() <= 0) {
                    awaitWake(pollInterval.toNanos());
                }
            } catch (Throwable t) {
                // The loop survives anything: a lost database, a broken row, a bug. Back off and go on.
                log.warn("fetcher for queue {} failed, retrying in {} ms: {}", queue, backoffMillis, t.toString());
                awaitWake(TimeUnit.MILLISECONDS.toNanos(backoffMillis));
                backoffMillis = Math.min(backoffMillis * 2, MAX_ERROR_BACKOFF.toMillis());
            }
        }
    }

    /**
     * One round: start transactional runs (up to half the free slots, so a lease-mode backlog
     * cannot starve them), then claim lease-mode jobs for the free slots plus the local buffer.
     * Returns jobs claimed or started.
     */
    private int fetchOnce() throws Exception {
        if (pausedQueues.isPaused(queue)) {
            return 0; // resuming wakes this fetcher
        }
        int started = 0;
        if (!transactionalKinds.isEmpty() && transactionalWorkLikely) {
            // Half the free slots while lease-mode work keeps coming, all of them when it does not.
            int free = slots.availablePermits();
            int share = leaseWorkLikely ? Math.max(1, free / 2) : free;
            for (int i = 0; i < share && slots.tryAcquire(); i++) {
                dispatch(this::runTransactionalJobs);
                started++;
            }
        }
        started += startBufferedOnFreeSlots();
        updateBufferTarget();
        int want = wanted();
        if (want <= 0) {
            return started;
        }
        return started + claimAndPlace(want);
    }

    /**
     * Claims up to {@code want} jobs, split into statements sent at once when it is large, and
     * starts them on free slots; the rest wait in the buffer. Jobs a statement did claim are
     * tracked and buffered even when another statement of the round failed.
     */
    private int claimAndPlace(int want) throws Exception {
        int parts = claimStatements(want);
        long claimSentAt = System.nanoTime();
        List<Future<List<ClaimedJob>>> others = new ArrayList<>(parts - 1);
        int first = want - (want / parts) * (parts - 1);
        for (int i = 1; i < parts; i++) {
            int limit = want / parts;
            others.add(claimHelper().submit(() -> claim(limit)));
        }
        List<ClaimedJob> jobs = new ArrayList<>(want);
        Exception failure = null;
        try {
            jobs.addAll(claim(first));
        } catch (Exception e) {
            failure = e;
        }
        for (Future<List<ClaimedJob>> other : others) {
            try {
                jobs.addAll(getUninterruptibly(other));
            } catch (ExecutionException e) {
                Exception cause = e.getCause() instanceof Exception ex ? ex : e;
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        if (parts > 1) {
            jobs.sort(ClaimedJob.CLAIM_ORDER);
        }
        if (failure == null) {
            leaseWorkLikely = !jobs.isEmpty();
        }
        lastFullClaim = failure == null && jobs.size() == want ? want : 0;
        long leaseValidUntil = claimSentAt + ctx.lease().toNanos();
        List<Buffered> claimed = new ArrayList<>(jobs.size());
        for (ClaimedJob job : jobs) {
            // Tracked from the claim on, so the heartbeat extends the leases of buffered jobs too.
            claimed.add(new Buffered(job, ctx.tracker().start(queue, job.id(), job.attempt(), false, leaseValidUntil)));
        }
        // Through the buffer, so jobs start in claim order behind any claimed earlier.
        addToBuffer(claimed);
        startBufferedOnFreeSlots();
        if (failure != null) {
            throw failure;
        }
        return jobs.size();
    }

    /** Statements for a claim of {@code want} jobs: enough for maxBatch each, split further while each keeps enough. */
    private int claimStatements(int want) {
        int needed = (want + maxBatch - 1) / maxBatch;
        int worthIt = Math.max(1, want / MIN_JOBS_PER_CLAIM);
        return Math.min(CLAIM_PARALLELISM, Math.max(needed, worthIt));
    }

    private List<ClaimedJob> claim(int limit) throws Exception {
        try (Connection c = Transactions.autoCommit(ctx.dataSource())) {
            return ctx.claimer().claim(c, queue, notLeaseClaimed, limit);
        }
    }

    private ExecutorService claimHelper() {
        if (claimHelper == null) {
            claimHelper = Executors.newFixedThreadPool(CLAIM_PARALLELISM - 1,
                    WorkerThreads.daemonFactory("skipjack-claimer-" + queue));
        }
        return claimHelper;
    }

    /** The claimed jobs must be tracked whatever happens to this thread, so wait them out. */
    private static <T> T getUninterruptibly(Future<T> future) throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A slot can free up just after its job thread found the buffer empty and just before a claim
     * filled it: start such buffered jobs here, so none waits while a slot is free.
     */
    private int startBufferedOnFreeSlots() {
        int started = 0;
        while (slots.tryAcquire()) {
            Buffered next;
            lock.lock();
            try {
                next = running ? buffer.pollFirst() : null;
            } finally {
                lock.unlock();
            }
            if (next == null) {
                slots.release();
                return started;
            }
            try {
                dispatch(() -> runLeasedThenBuffered(next));
            } catch (Throwable t) {
                handBack(List.of(next), t.toString());
                throw t;
            }
            started++;
        }
        return started;
    }

    /** Jobs to claim now: one per free slot, plus what the local buffer lacks, unless acknowledgements lag. */
    private int wanted() {
        int room = maxHeld - ctx.tracker().leasedHeld(queue);
        lock.lock();
        try {
            return Math.min(Math.min(room, maxBatch * CLAIM_PARALLELISM), slots.availablePermits() + bufferTarget - buffer.size());
        } finally {
            lock.unlock();
        }
    }

    private boolean heldBackByAcknowledgements() {
        return ctx.tracker().leasedHeld(queue) >= maxHeld;
    }

    /**
     * Sizes the local buffer to the jobs this process finishes in {@link #BUFFER_WINDOW}, since
     * each finished job frees the slot a buffered one fills: short jobs get claimed a batch ahead
     * (one round trip for many jobs), long jobs are not hoarded away from other workers. Counting
     * starts instead would buffer a whole slot's worth at start-up, when idle slots fill at once,
     * and hold those jobs behind long handlers (ClockSkewTest and FaultInjectionTest saw it).
     */
    private void updateBufferTarget() {
        lock.lock();
        try {
            if (lastFullClaim > 0 && buffer.isEmpty() && slots.availablePermits() == concurrency) {
                // Every job of the last claim finished before this fetcher came back, and the
                // queue had more: the job threads are starved. Grow at once rather than wait for
                // the next rate sample (a worker starting on a backlog would claim one slot's
                // worth per round for the first sample). Long jobs never get here: their slots are busy.
                bufferTarget = Math.min(maxBatch * CLAIM_PARALLELISM, Math.max(bufferTarget, lastFullClaim) * STARVED_GROWTH);
            }
            long now = System.nanoTime();
            long elapsed = now - rateSampledAt;
            if (elapsed < RATE_SAMPLE_NANOS) {
                return;
            }
            long count = finishedJobs.sum();
            double perNano = (double) (count - rateSampledCount) / elapsed;
            // Up to one full round of claims. A short sample can fall between two rounds and see
            // nothing finish, so the target only halves per sample: it follows a rise at once
            // and a real fall within a few samples.
            int sampled = (int) Math.min((long) maxBatch * CLAIM_PARALLELISM, Math.ceil(perNano * BUFFER_WINDOW.toNanos()));
            bufferTarget = Math.max(sampled, bufferTarget / 2);
            rateSampledAt = now;
            rateSampledCount = count;
        } finally {
            lock.unlock();
        }
    }

    private void addToBuffer(List<Buffered> jobs) {
        lock.lock();
        try {
            buffer.addAll(jobs);
        } finally {
            lock.unlock();
        }
    }

    /** The next buffered job for a job thread that just finished one; null when stopping or empty. */
    private Buffered takeBuffered() {
        lock.lock();
        try {
            if (!running) {
                return null;
            }
            Buffered next = buffer.pollFirst();
            if (buffer.size() * 4 <= bufferTarget * 3) {
                // Refill before the buffer runs dry: at three quarters, not half, because a claim
                // round takes longer than short jobs take to empty the other half, and the job
                // threads then waited for it (drain ran about 5% faster).
                wakeRequested = true;
                wake.signalAll();
            }
            return next;
        } finally {
            lock.unlock();
        }
    }

    /** Runs a claimed job, then buffered ones, on this job thread and its slot. */
    private void runLeasedThenBuffered(Buffered first) {
        Buffered b = first;
        while (b != null) {
            // Abandoned while buffered (its lease could not be extended): it is not ours to run.
            if (!b.execution().isSettled()) {
                executor.runLeased(b.job(), b.execution());
                finishedJobs.increment();
            }
            b = takeBuffered();
        }
    }

    /** At stop: buffered jobs go back to the queue at once, not after their leases. */
    private void handBackBuffered() {
        List<Buffered> rest;
        lock.lock();
        try {
            rest = new ArrayList<>(buffer);
            buffer.clear();
        } finally {
            lock.unlock();
        }
        handBack(rest, "the worker stopped before starting it");
    }

    private void handBack(List<Buffered> jobs, String why) {
        for (Buffered b : jobs) {
            Execution e = b.execution();
            if (e.settle()) {
                ctx.completer().submit(e, ctx.translator().handBack(e.id(), e.attempt(), ctx.workerId(),
                        "worker " + ctx.workerId() + " could not start the job: " + why));
            }
        }
    }

    private void runTransactionalJobs() {
        for (int i = 0; i < TRANSACTIONAL_RUN_LENGTH && running && !pausedQueues.isPaused(queue); i++) {
            if (!executor.runOneTransactional(queue, transactionalKinds)) {
                transactionalWorkLikely = false;
                return;
            }
        }
    }

    /** Runs {@code task} on a job thread that holds one already-acquired slot and frees it at the end. */
    private void dispatch(Runnable task) {
        try {
            ctx.jobThreads().execute(() -> {
                try {
                    task.run();
                } catch (Throwable t) {
                    log.error("job thread on queue {} failed unexpectedly", queue, t);
                } finally {
                    slots.release();
                    signalSlotFreed();
                }
            });
        } catch (Throwable rejected) {
            slots.release();
            throw rejected;
        }
    }

    private void signalSlotFreed() {
        lock.lock();
        try {
            wakeRequested = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void awaitWake(long nanos) {
        lock.lock();
        try {
            long left = nanos;
            while (!wakeRequested && running && left > 0) {
                left = wake.awaitNanos(left);
            }
            if (!wakeRequested) {
                // A quiet poll interval passed: look for transactional work again too.
                transactionalWorkLikely = true;
            }
            wakeRequested = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }
}
