package dev.skipjack.internal.maintenance;

import java.sql.SQLException;

/**
 * Keeps a client's stopped run from undoing what its next run wrote. A stop's last writes (the
 * leadership release, the node row's removal) are waited for only a while and may still be
 * running in the background when {@code start()} is called again; the new run has the same worker
 * id, so a late {@code DELETE ... WHERE holder = ?} would delete the new run's leadership row (and
 * two nodes would then lead until the next renewal) or its node row. Each run takes the next
 * number; a late write runs only while its run is still the latest, checked and executed under one
 * lock, so a start cannot slip in between the check and the statement. The lock is held for the
 * statement alone, which runs with a {@link #WRITE_TIMEOUT}: a write still waiting for a connection
 * does not hold up a start, and one stuck in the database (a row lock, a half-dead connection)
 * holds it up for at most that long. The fence is the client object's: a new client, or a new
 * process, with the same explicit worker id is not fenced off from the old one's late writes.
 */
public final class RunFence {

    /** One statement, run on a connection the caller already holds. */
    public interface Write {
        void run() throws SQLException;
    }

    /** The longest a fenced statement may run (JDBC query timeout), and so the longest a start waits for one. */
    public static final java.time.Duration WRITE_TIMEOUT = java.time.Duration.ofSeconds(10);

    private long latest;

    /**
     * The number of a run that starts now (one per run, shared by all its writes); every write of an
     * earlier run that has not begun never will.
     */
    public synchronized long nextRun() {
        return ++latest;
    }

    /** Runs {@code write} if no run has started since {@code run}; returns whether it ran. */
    public synchronized boolean ifLatest(long run, Write write) throws SQLException {
        if (run != latest) {
            return false;
        }
        write.run();
        return true;
    }
}
