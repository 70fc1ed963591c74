package dev.skipjack.internal.worker;

import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.pause.PausedQueues;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one fetcher of a queue in this process (F-15): claims batches sized to the queue's free
 * slots with a single statement and hands each job to a job thread. Transactional kinds are
 * claimed by the job threads themselves, one job per transaction, paced by the same slots.
 */
public final class QueueFetcher {

    private static final Logger log = LoggerFactory.getLogger(QueueFetcher.class);

    /** Most transactional jobs one job thread runs before it gives its slot back to the fetcher. */
    static final int TRANSACTIONAL_RUN_LENGTH = 100;
    private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(5);

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
    private final Thread thread;
    private boolean wakeRequested;
    private volatile boolean transactionalWorkLikely = true;
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
        long backoffMillis = 100;
        while (running) {
            try {
                int claimed = fetchOnce();
                backoffMillis = 100;
                if (claimed == 0 || slots.availablePermits() == 0) {
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
     * cannot starve them), then claim lease-mode jobs for the rest. Returns jobs started.
     */
    private int fetchOnce() throws Exception {
        if (pausedQueues.isPaused(queue)) {
            return 0; // resuming wakes this fetcher
        }
        int started = 0;
        if (!transactionalKinds.isEmpty() && transactionalWorkLikely) {
            int share = Math.max(1, slots.availablePermits() / 2);
            for (int i = 0; i < share && slots.tryAcquire(); i++) {
                dispatch(this::runTransactionalJobs);
                started++;
            }
        }
        int free = slots.availablePermits();
        if (free == 0) {
            return started;
        }
        int want = Math.min(free, maxBatch);
        slots.acquire(want);
        List<ClaimedJob> jobs;
        long claimSentAt = System.nanoTime();
        try (Connection c = ctx.dataSource().getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            jobs = ctx.claimer().claim(c, queue, notLeaseClaimed, want);
        } catch (Throwable t) {
            slots.release(want);
            throw t;
        }
        slots.release(want - jobs.size());
        long leaseValidUntil = claimSentAt + ctx.lease().toNanos();
        for (int i = 0; i < jobs.size(); i++) {
            ClaimedJob job = jobs.get(i);
            Execution execution = ctx.tracker().start(job.id(), job.attempt(), false, leaseValidUntil);
            try {
                dispatch(() -> runner.runLeased(job, execution));
            } catch (Throwable t) {
                // No thread for this job (shutting down, or out of threads): give it and the rest
                // of the batch back to the queue now rather than after their leases.
                handBackUndispatched(jobs.subList(i, jobs.size()), execution, leaseValidUntil, t);
                throw t;
            }
        }
        return started + jobs.size();
    }

    private void handBackUndispatched(List<ClaimedJob> jobs, Execution first, long leaseValidUntil, Throwable why) {
        for (ClaimedJob job : jobs) {
            Execution e = job.id() == first.id() ? first : ctx.tracker().start(job.id(), job.attempt(), false, leaseValidUntil);
            if (job.id() != first.id()) {
                slots.release(); // dispatch() already released the first one's slot
            }
            if (e.settle()) {
                ctx.completer().submit(e, ctx.translator().handBack(job.id(), job.attempt(), ctx.workerId(),
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
