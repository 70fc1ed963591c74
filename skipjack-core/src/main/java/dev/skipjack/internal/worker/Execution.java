package dev.skipjack.internal.worker;

import dev.skipjack.Job;

import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One execution of a claimed job in this process, identified in the database by (id, attempt).
 * Exactly one party settles it — the handler returning, the timeout watchdog, or shutdown handing
 * it back — and only that party's outcome is recorded.
 */
public final class Execution {

    final String queue;
    final long id;
    final int attempt;
    final boolean transactional;
    private final AtomicBoolean settled = new AtomicBoolean();
    private final Object threadLock = new Object();
    private Thread thread;
    private volatile long leaseValidUntilNanos;
    private volatile boolean timedOut;
    private volatile Connection transactionConnection;
    /** The job as its handler saw it, once its args were read; the two-phase commit passes it on. */
    private Job<Object> job;
    /** What its handler reported and is not written yet; null until the handler is about to run. */
    private volatile ExecutionReports reports;
    /** What the handler threw, if it threw; the transactional runner tells a deadlock from a failure by it. */
    private Throwable handlerFailure;
    /** The state an operator asked the job to end in ('cancelled', 'discarded'), as the heartbeat read it; null: none. */
    private volatile String stopRequested;

    /** The claim this execution runs, when the caller has it: a hand-back of a job asked to stop needs its keys. */
    private final dev.skipjack.internal.claim.ClaimedJob claimed;

    Execution(String queue, long id, int attempt, boolean transactional, long leaseValidUntilNanos) {
        this(queue, id, attempt, transactional, leaseValidUntilNanos, null);
    }

    Execution(String queue, long id, int attempt, boolean transactional, long leaseValidUntilNanos,
              dev.skipjack.internal.claim.ClaimedJob claimed) {
        this.claimed = claimed;
        this.queue = queue;
        this.id = id;
        this.attempt = attempt;
        this.transactional = transactional;
        this.leaseValidUntilNanos = leaseValidUntilNanos;
    }

    public long id() {
        return id;
    }

    public int attempt() {
        return attempt;
    }

    /** Claims the right to record this execution's outcome; true for the first caller only. */
    boolean settle() {
        return settled.compareAndSet(false, true);
    }

    boolean isSettled() {
        return settled.get();
    }

    void bindThread(Thread t) {
        synchronized (threadLock) {
            thread = t;
        }
    }

    /** After this returns no interrupt meant for this execution can reach the thread. */
    void unbindThread() {
        synchronized (threadLock) {
            thread = null;
        }
    }

    void interrupt() {
        synchronized (threadLock) {
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    /**
     * Records a successful lease extension sent at {@code sentAtNanos}: the lease is certainly
     * valid until then plus the lease, whatever the clocks say (the database measured from later).
     */
    void leaseExtended(long sentAtNanos, long leaseNanos) {
        leaseValidUntilNanos = sentAtNanos + leaseNanos;
    }

    /** True when this worker can no longer be sure it still holds the job's lease. */
    boolean leaseMayHaveExpired(long nowNanos) {
        return nowNanos - leaseValidUntilNanos > 0;
    }

    /**
     * Records an operator's request to end the job in {@code state}; true the first time, when the
     * caller interrupts the handler.
     */
    boolean requestStop(String state) {
        boolean first = stopRequested == null;
        stopRequested = state;
        return first;
    }

    /** The claim, or null when the caller did not give it. */
    dev.skipjack.internal.claim.ClaimedJob claimed() {
        return claimed;
    }

    /** The state an operator asked this execution's job to end in, or null. */
    String stopRequested() {
        return stopRequested;
    }

    void markTimedOut() {
        timedOut = true;
    }

    boolean timedOut() {
        return timedOut;
    }

    void bindJob(Job<Object> job) {
        this.job = job;
    }

    Job<Object> job() {
        return job;
    }

    void bindReports(ExecutionReports r) {
        reports = r;
    }

    ExecutionReports reports() {
        return reports;
    }

    void handlerThrew(Throwable t) {
        handlerFailure = t;
    }

    /** What the handler threw, or null; read on the job's own thread after the handler returned. */
    Throwable handlerFailure() {
        return handlerFailure;
    }

    void bindConnection(Connection c) {
        transactionConnection = c;
    }

    Connection connection() {
        return transactionConnection;
    }
}
