package dev.skipjack.internal.worker;

import dev.skipjack.internal.claim.ClaimedJob;
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
    private final Duration pollInterval;
    private final Semaphore slots;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Thread thread;
    private boolean wakeRequested;
    private volatile boolean transactionalWorkLikely = true;
    private volatile boolean running;

    public QueueFetcher(WorkerContext ctx, String queue, int concurrency, int maxBatch, Set<String> transactionalKinds,
                        Duration pollInterval) {
        this.ctx = ctx;
        this.runner = new JobRunner(ctx);
        this.queue = queue;
        this.concurrency = concurrency;
        this.maxBatch = maxBatch;
        this.transactionalKinds = Set.copyOf(transactionalKinds);
        this.pollInterval = pollInterval;
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
    public void stopClaiming() {
        running = false;
        wake();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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

    /** One round: claim lease-mode jobs for the free slots, then start transactional runs. Returns jobs started. */
    private int fetchOnce() throws Exception {
        int free = slots.availablePermits();
        if (free == 0) {
            return 0;
        }
        int want = Math.min(free, maxBatch);
        slots.acquire(want);
        List<ClaimedJob> jobs;
        try (Connection c = ctx.dataSource().getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            jobs = ctx.claimer().claim(c, queue, transactionalKinds, want);
        } catch (Exception e) {
            slots.release(want);
            throw e;
        }
        slots.release(want - jobs.size());
        for (ClaimedJob job : jobs) {
            Execution execution = ctx.tracker().start(job.id(), job.attempt(), false);
            dispatch(() -> runner.runLeased(job, execution));
        }
        int started = jobs.size();
        if (!transactionalKinds.isEmpty() && transactionalWorkLikely) {
            int spare = slots.availablePermits();
            for (int i = 0; i < spare && slots.tryAcquire(); i++) {
                dispatch(this::runTransactionalJobs);
                started++;
            }
        }
        return started;
    }

    private void runTransactionalJobs() {
        for (int i = 0; i < TRANSACTIONAL_RUN_LENGTH && running; i++) {
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
        } catch (RuntimeException rejected) {
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
