package dev.skipjack.internal.worker;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.ConnectionHints;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.observe.ListenerFanOut;
import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.pause.PausedQueues;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The dispatch step of a job's path, for one queue in this process (F-15). It owns the queue's
 * slots (one per job thread it may use) and its local buffer: it asks its {@link ClaimRound} for
 * as many lease-mode jobs as there are free slots plus what the buffer should hold, and hands each
 * job to a job thread; a job thread that finishes takes the next buffered job itself, without a
 * round trip or a hand-off. Transactional kinds are claimed by the job threads themselves through
 * the {@link TransactionalRunner}, one job per transaction, paced by the same slots. A slot is
 * taken and given back here only.
 */
final class QueueDispatcher {

    private static final Logger log = LoggerFactory.getLogger(QueueDispatcher.class);
    /** Names the setup's fault when a claim fails with one of its symptoms. */
    private final Dialect dialect;

    /**
     * Most transactions (groups, or jobs that run alone) one job thread runs before it gives its
     * slot back to the fetcher; a group holds up to the dialect's maxTransactionalGroup jobs.
     */
    static final int TRANSACTIONAL_RUN_LENGTH = 100;
    private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(5);
    /**
     * Finished jobs whose acknowledgement may wait, beyond the running and buffered ones, before
     * the fetcher stops claiming: two full completer batches. Claiming on while acknowledgements
     * fall behind would leave ever more jobs running in the database, until their leases expired
     * and jobs that already ran were rescued and run again.
     */
    static final int MAX_UNACKNOWLEDGED = BatchCompleter.MAX_BATCH * BatchCompleter.WRITERS;
    /** How soon a fetcher held back by unacknowledged jobs looks again. */
    private static final long ACK_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** A claimed lease-mode job and its execution, from claim until a job thread takes it. */
    private record Buffered(ClaimedJob job, Execution execution) {
    }

    private final String queue;
    private final int concurrency;
    private final ClaimRound claims;
    private final JobExecutor executor;
    /** Null when no kind of this process is transactional. */
    private final TransactionalRunner transactional;
    private final ExecutionTracker tracker;
    private final LeasedCompletions completions;
    private final ExecutorService jobThreads;
    private final Duration lease;
    private final Duration pollInterval;
    private final PausedQueues pausedQueues;
    private final Semaphore slots;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Thread thread;
    /** Claimed jobs waiting for a slot; guarded by {@link #lock}. */
    private final ArrayDeque<Buffered> buffer = new ArrayDeque<>();
    /** Guarded by {@link #lock}. */
    private final BufferTarget bufferTarget;
    /** At most this many held: running, buffered, and finished awaiting acknowledgement. */
    private final int maxHeld;
    private boolean wakeRequested;
    /** Size of the last claim round, when it got every job it asked for (0 otherwise); dispatcher thread only. */
    private int lastFullClaim;
    private volatile boolean transactionalWorkLikely = true;
    /** False after a lease-mode claim came back empty: transactional runs may then take every slot. */
    private volatile boolean leaseWorkLikely = true;
    private volatile boolean running;
    /** Told the size of each claim round that took jobs (SkipjackListener.jobsClaimed). */
    private final ListenerFanOut listeners;

    QueueDispatcher(WorkerRuntime.QueueSettings settings, WorkerRuntime.Timing timing, ClaimRound claims,
                    JobExecutor executor, TransactionalRunner transactional, ExecutionTracker tracker,
                    LeasedCompletions completions, ExecutorService jobThreads, PausedQueues pausedQueues, Dialect dialect,
                    ListenerFanOut listeners) {
        this.listeners = listeners;
        this.dialect = dialect;
        this.queue = settings.name();
        this.concurrency = settings.concurrency();
        this.claims = claims;
        this.executor = executor;
        this.transactional = transactional;
        this.tracker = tracker;
        this.completions = completions;
        this.jobThreads = jobThreads;
        this.lease = timing.lease();
        this.pollInterval = timing.pollInterval();
        this.pausedQueues = pausedQueues;
        this.slots = new Semaphore(concurrency);
        this.bufferTarget = new BufferTarget(claims.maxJobs());
        this.maxHeld = concurrency + claims.maxJobs() + MAX_UNACKNOWLEDGED;
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
            claims.close();
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
                ConnectionHints.note(dialect, t);
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
        if (transactional != null && transactionalWorkLikely) {
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
     * Claims up to {@code want} jobs and starts them on free slots; the rest wait in the buffer.
     * Jobs a statement did claim are tracked and buffered even when another statement of the
     * round failed.
     */
    private int claimAndPlace(int want) throws Exception {
        // Split into parallel statements only behind a round that came back full (a backlog): a
        // queue waking from idle for one new job would otherwise wait for four statements on
        // four connections before starting it (pickup at concurrency 256 was 1.5x that at 8).
        ClaimRound.Claimed round = claims.claim(want, lastFullClaim > 0);
        List<ClaimedJob> jobs = round.jobs();
        if (!jobs.isEmpty() && listeners.active()) {
            listeners.jobsClaimed(queue, jobs.size());
        }
        if (round.failure() == null) {
            leaseWorkLikely = !jobs.isEmpty();
        }
        lastFullClaim = round.full() ? round.asked() : 0;
        // Through the buffer, so jobs start in claim order behind any claimed earlier.
        addToBuffer(tracked(jobs, round.sentAtNanos() + lease.toNanos()));
        startBufferedOnFreeSlots();
        if (round.failure() != null) {
            throw round.failure();
        }
        return jobs.size();
    }

    /**
     * The claimed jobs, each tracked from the claim on, so the heartbeat extends the leases of
     * buffered jobs too. A method of its own rather than a loop in {@link #claimAndPlace}: a loop
     * there, once per job, made the JIT compile claimAndPlace on the stack with the whole claim
     * statement inlined, twice, in a fresh worker's first seconds (see CompletionWriter.Split).
     */
    private List<Buffered> tracked(List<ClaimedJob> jobs, long leaseValidUntil) {
        List<Buffered> claimed = new ArrayList<>(jobs.size());
        for (ClaimedJob job : jobs) {
            claimed.add(new Buffered(job, tracker.start(job, false, leaseValidUntil)));
        }
        return claimed;
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
        int room = maxHeld - tracker.leasedHeld(queue);
        lock.lock();
        try {
            return Math.min(Math.min(room, claims.maxJobs()), slots.availablePermits() + bufferTarget.jobs() - buffer.size());
        } finally {
            lock.unlock();
        }
    }

    private boolean heldBackByAcknowledgements() {
        return tracker.leasedHeld(queue) >= maxHeld;
    }

    private void updateBufferTarget() {
        lock.lock();
        try {
            bufferTarget.update(lastFullClaim, buffer.isEmpty() && slots.availablePermits() == concurrency);
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
            if (buffer.size() * 4 <= bufferTarget.jobs() * 3) {
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
            if (!b.execution().isSettled() && !abandonedAsLate(b.execution())) {
                executor.runLeased(b.job(), b.execution());
                bufferTarget.jobFinished();
            }
            b = takeBuffered();
        }
    }

    /**
     * True when this execution's lease may have run out before its handler starts, most often
     * because its claim was answered late (a claim waiting on a cut network or a lock for longer
     * than the lease): the database may have given the job to another worker meanwhile, so its
     * handler is not started. The job is handed back, its attempt given back: the write is guarded
     * by (id, attempt, running), so it changes nothing when the job was rescued and claimed again
     * meanwhile, and otherwise the job runs again at once instead of waiting for the rescue, which
     * would count an attempt no handler ran (on the last attempt, discarding a job that never
     * ran). The lease heartbeat's watchdog would abandon it too, but only on its next round, after
     * the handler had begun. Same margin as the watchdog's.
     */
    private boolean abandonedAsLate(Execution e) {
        if (!e.leaseMayHaveExpired(System.nanoTime() + LeaseHeartbeat.safetyMarginNanos(lease))
                || !completions.handBack(e, "did not start it: its claim was answered after its lease may have run out")) {
            return false;
        }
        log.warn("job {} attempt {} not started: its lease may have run out since it was claimed; handed back",
                e.id(), e.attempt());
        return true;
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
            completions.handBack(b.execution(), "could not start the job: " + why);
        }
    }

    private void runTransactionalJobs() {
        for (int i = 0; i < TRANSACTIONAL_RUN_LENGTH && running && !pausedQueues.isPaused(queue); i++) {
            if (!transactional.runOne()) {
                transactionalWorkLikely = false;
                return;
            }
        }
    }

    /** Runs {@code task} on a job thread that holds one already-acquired slot and frees it at the end. */
    private void dispatch(Runnable task) {
        try {
            jobThreads.execute(() -> {
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
