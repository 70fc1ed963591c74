package dev.skipjack.internal.worker;

import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.pause.PausedQueues;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one fetcher of a queue in this process (F-15): claims batches sized to the queue's free
 * slots plus a small local buffer with a single statement and hands each job to a job thread; a
 * job thread that finishes takes the next buffered job itself, without a round trip or a hand-off. Transactional kinds are
 * claimed by the job threads themselves, one job per transaction, paced by the same slots.
 */
public final class QueueFetcher {

    private static final Logger log = LoggerFactory.getLogger(QueueFetcher.class);

    /** Most transactional jobs one job thread runs before it gives its slot back to the fetcher. */
    static final int TRANSACTIONAL_RUN_LENGTH = 100;
    private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(5);
    /** The local buffer holds about the jobs this process starts in this long, at most two claims' worth. */
    static final Duration BUFFER_WINDOW = Duration.ofMillis(50);
    /**
     * Claims one queue may have in flight at once. One: two claims in flight can return out of
     * order and start a later claim's jobs before an earlier one's, breaking priority order
     * within the process (DelayedAndPriorityTest); the measured gain was small.
     */
    static final int CLAIM_PIPELINE = 1;
    private static final long RATE_SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** A claimed lease-mode job and its execution, from claim until a job thread takes it. */
    private record Buffered(ClaimedJob job, Execution execution) {
    }

    private final WorkerContext ctx;
    private final JobRunner runner;
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
    private final List<Thread> threads = new ArrayList<>();
    /** Jobs asked for by claims now in flight; guarded by {@link #lock}. */
    private int claimsInFlight;
    /** Claimed jobs waiting for a slot; guarded by {@link #lock}. */
    private final ArrayDeque<Buffered> buffer = new ArrayDeque<>();
    /** Jobs the buffer should hold; guarded by {@link #lock}. */
    private int bufferTarget;
    private final LongAdder finishedJobs = new LongAdder();
    private long rateSampledAt = System.nanoTime();
    private long rateSampledCount;
    private boolean wakeRequested;
    private volatile boolean transactionalWorkLikely = true;
    /** False after a lease-mode claim came back empty: transactional runs may then take every slot. */
    private volatile boolean leaseWorkLikely = true;
    private volatile boolean running;

    public QueueFetcher(WorkerContext ctx, String queue, int concurrency, int maxBatch, Set<String> transactionalKinds,
                        Set<String> kindsRunElsewhere, Duration pollInterval, PausedQueues pausedQueues) {
        this.ctx = ctx;
        this.runner = new JobRunner(ctx);
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
        for (int i = 1; i <= CLAIM_PIPELINE; i++) {
            Thread t = new Thread(this::loop, "skipjack-fetcher-" + queue + "#" + i);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    public String queue() {
        return queue;
    }

    public void start() {
        running = true;
        threads.forEach(Thread::start);
    }

    /** Stops claiming; jobs already claimed keep running. */
    public void requestStop() {
        running = false;
        wake();
    }

    /** Waits, until the deadline at most, for the fetcher threads to end their last claims and exit. */
    public void awaitStopped(long deadlineNanos) throws InterruptedException {
        for (Thread t : threads) {
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            t.join(Math.max(1, leftMillis));
        }
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
        }
    }

    private void fetchUntilStopped() {
        long backoffMillis = 100;
        while (running) {
            try {
                int claimed = fetchOnce();
                backoffMillis = 100;
                if (claimed == 0 || wanted() <= 0) {
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
        int want = reserve();
        if (want <= 0) {
            return started;
        }
        try {
            return started + claimAndPlace(want);
        } finally {
            // Only now: the claimed jobs are running or buffered, so wanted() counts them there.
            release(want);
        }
    }

    /** Claims up to {@code want} jobs and starts them on free slots; the rest wait in the buffer. */
    private int claimAndPlace(int want) throws Exception {
        List<ClaimedJob> jobs;
        long claimSentAt = System.nanoTime();
        try (Connection c = ctx.dataSource().getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            jobs = ctx.claimer().claim(c, queue, notLeaseClaimed, want);
        }
        leaseWorkLikely = !jobs.isEmpty();
        long leaseValidUntil = claimSentAt + ctx.lease().toNanos();
        List<Buffered> claimed = new ArrayList<>(jobs.size());
        for (ClaimedJob job : jobs) {
            // Tracked from the claim on, so the heartbeat extends the leases of buffered jobs too.
            claimed.add(new Buffered(job, ctx.tracker().start(job.id(), job.attempt(), false, leaseValidUntil)));
        }
        // Through the buffer, so jobs start in claim order behind any claimed earlier.
        addToBuffer(claimed);
        startBufferedOnFreeSlots();
        return jobs.size();
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

    /** Jobs to claim now: one per free slot, plus what the local buffer lacks, less claims in flight. */
    private int wanted() {
        lock.lock();
        try {
            return Math.min(maxBatch, slots.availablePermits() + bufferTarget - buffer.size() - claimsInFlight);
        } finally {
            lock.unlock();
        }
    }

    /** Reserves the jobs this claim asks for, so the other claimer does not ask for them too. */
    private int reserve() {
        lock.lock();
        try {
            int want = wanted();
            if (want > 0) {
                claimsInFlight += want;
            }
            return want;
        } finally {
            lock.unlock();
        }
    }

    /** Ends a reservation; the claimed jobs are in the buffer or running by then. */
    private void release(int reserved) {
        lock.lock();
        try {
            claimsInFlight -= reserved;
        } finally {
            lock.unlock();
        }
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
            long now = System.nanoTime();
            long elapsed = now - rateSampledAt;
            if (elapsed < RATE_SAMPLE_NANOS) {
                return;
            }
            long count = finishedJobs.sum();
            double perNano = (double) (count - rateSampledCount) / elapsed;
            // Up to one full batch per claim in flight.
            bufferTarget = (int) Math.min((long) maxBatch * CLAIM_PIPELINE, Math.ceil(perNano * BUFFER_WINDOW.toNanos()));
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
            if (buffer.size() * 2 <= bufferTarget) {
                // Refill before the buffer runs dry.
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
                runner.runLeased(b.job(), b.execution());
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
            if (!runner.runOneTransactional(queue, transactionalKinds)) {
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
