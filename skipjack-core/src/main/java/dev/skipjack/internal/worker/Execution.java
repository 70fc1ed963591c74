package dev.skipjack.internal.worker;

import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One execution of a claimed job in this process, identified in the database by (id, attempt).
 * Exactly one party settles it — the handler returning, the timeout watchdog, or shutdown handing
 * it back — and only that party's outcome is recorded.
 */
public final class Execution {

    final long id;
    final int attempt;
    final boolean transactional;
    private final AtomicBoolean settled = new AtomicBoolean();
    private volatile Thread thread;
    private volatile boolean timedOut;
    private volatile Connection transactionConnection;

    Execution(long id, int attempt, boolean transactional) {
        this.id = id;
        this.attempt = attempt;
        this.transactional = transactional;
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
        thread = t;
    }

    void unbindThread() {
        thread = null;
    }

    void interrupt() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    void markTimedOut() {
        timedOut = true;
    }

    boolean timedOut() {
        return timedOut;
    }

    void bindConnection(Connection c) {
        transactionConnection = c;
    }

    Connection connection() {
        return transactionConnection;
    }
}
