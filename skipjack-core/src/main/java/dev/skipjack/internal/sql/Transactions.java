package dev.skipjack.internal.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import javax.sql.DataSource;

/**
 * Runs work in one transaction on a pooled connection: commit when it returns, roll back when it
 * throws, and the connection's auto-commit restored either way.
 */
public final class Transactions {

    /** Work that needs a connection in an open transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private Transactions() {
    }

    /**
     * A pooled connection in auto-commit mode, so each statement on it commits by itself: a pool
     * may hand out a connection its last user left in manual-commit mode.
     */
    public static Connection autoCommit(DataSource dataSource) throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Attempts of a short transaction of Skipjack's own that meets a transient conflict. */
    static final int CONFLICT_ATTEMPTS = 5;

    /**
     * Runs {@code work} in a transaction on {@code c} (in auto-commit), retried after a rollback
     * when {@code dialect} calls the failure a transient conflict; auto-commit restored. A BEGIN
     * that fails (SQLite's write lock not had within the busy timeout) is not retried: another try
     * would wait as long again.
     */
    static <T> T retryingOnConflict(Dialect dialect, Connection c, Work<T> work) throws SQLException {
        if (!c.getAutoCommit()) {
            throw new IllegalStateException("a short transaction of its own needs a connection in auto-commit");
        }
        SQLException conflict = null;
        for (int attempt = 1; ; attempt++) {
            try {
                begin(c);
            } catch (SQLException | RuntimeException e) {
                if (conflict != null) {
                    e.addSuppressed(conflict); // the conflict this attempt was retrying
                }
                throw e;
            }
            try {
                T result = work.run(c);
                dialect.commitToAutoCommit(c);
                return result;
            } catch (SQLException e) {
                // Roll back ourselves: MySQL's lock wait timeout rolls back only the statement.
                if (!rollbackToAutoCommit(c, dialect, e)
                        || !dialect.isTransientConflict(e) || attempt == CONFLICT_ATTEMPTS) {
                    throw e;
                }
                conflict = e;
            } catch (RuntimeException | Error e) {
                rollbackToAutoCommit(c, dialect, e);
                throw e;
            }
        }
    }

    /**
     * Takes {@code c} out of auto-commit, which opens a transaction (on SQLite a {@code BEGIN
     * IMMEDIATE} that waits for the write lock); nothing happens on a connection already out of
     * it. When that fails, {@code c} is switched back to auto-commit, its failure added to the one
     * thrown: sqlite-jdbc counts the connection out of auto-commit before its BEGIN runs, and
     * there is no transaction to roll back.
     */
    public static void begin(Connection c) throws SQLException {
        try {
            c.setAutoCommit(false);
        } catch (SQLException | RuntimeException e) {
            try {
                c.setAutoCommit(true);
            } catch (SQLException | RuntimeException undo) {
                e.addSuppressed(undo);
            }
            throw e;
        }
    }

    /**
     * Ends the transaction {@code failure} interrupted through the dialect's
     * {@link Dialect#rollbackToAutoCommit} (on SQLite without taking the write lock again); a
     * failure of it is added to {@code failure}, which stays the one to report. No rollback when
     * {@code c} is already in auto-commit (a commit that switched it on failed: the dialect's
     * {@link Dialect#commitToAutoCommit} ended the transaction). Returns whether {@code c} is in
     * auto-commit now, with nothing of the transaction kept.
     *
     * <p>When the rollback fails, {@code c} is abandoned ({@link Dialect#abandon}: its physical
     * connection closed), which ends its transaction without committing it on every database here.
     * Left open, the connection would go back to the pool with the transaction still in it, and a
     * pool that cannot roll it back either (Hikari evicts only on errors it knows as fatal; SQLite
     * sets no SQLSTATE) resets auto-commit on it, which commits what was never undone. The caller
     * must not use {@code c} again.
     */
    public static boolean rollbackToAutoCommit(Connection c, Dialect dialect, Throwable failure) {
        try {
            if (!c.getAutoCommit()) {
                dialect.rollbackToAutoCommit(c);
            }
            return true;
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
            abandon(c, dialect, failure);
            return false;
        }
    }

    /** The dialect's {@link Dialect#abandon} of {@code c}; a failure of it is added to {@code failure}. */
    private static void abandon(Connection c, Dialect dialect, Throwable failure) {
        try {
            dialect.abandon(c);
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    public static <T> T inTransaction(DataSource dataSource, Dialect dialect, Work<T> work) throws SQLException {
        return inTransaction(dataSource, dialect, false, work);
    }

    /**
     * As {@link #inTransaction(DataSource, Dialect, Work)}, but work of {@code oneStatement} runs
     * without BEGIN and COMMIT around it when the pool's connection is in auto-commit: the statement
     * is its own transaction, and the COMMIT's round trip is saved.
     */
    public static <T> T inTransaction(DataSource dataSource, Dialect dialect, boolean oneStatement, Work<T> work)
            throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return oneStatement && c.getAutoCommit() ? work.run(c) : inTransaction(c, dialect, work);
        }
    }

    /**
     * Runs {@code work} in a transaction of its own on {@code c}, committed at its end and rolled
     * back on failure, and puts {@code c}'s auto-commit back as it was. From auto-commit the commit
     * is the dialect's way back to it ({@link Dialect#commitToAutoCommit}: on SQLite a plain
     * {@code commit()} would begin the next transaction and wait for the write lock again). The
     * work's failure is the one thrown, also when the connection is broken and the rollback fails
     * too (added to it as suppressed).
     */
    private static <T> T inTransaction(Connection c, Dialect dialect, Work<T> work) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        if (autoCommit) {
            begin(c);
        }
        T result;
        try {
            result = work.run(c);
            if (autoCommit) {
                dialect.commitToAutoCommit(c);
            } else {
                c.commit();
            }
        } catch (Throwable t) {
            if (autoCommit) {
                rollbackToAutoCommit(c, dialect, t);
            } else {
                // The connection came out of auto-commit: rolled back, and left as it was.
                try {
                    c.rollback();
                } catch (SQLException | RuntimeException undo) {
                    t.addSuppressed(undo);
                    abandon(c, dialect, t);
                }
            }
            throw t;
        }
        return result;
    }

    /**
     * Runs {@code work} on the caller's connection {@code c} as one all-or-nothing step that cannot
     * take the caller's transaction down with it (F-6, issue 14):
     * <ul>
     * <li>in auto-commit, {@code c} gets a transaction of its own around the work, committed at its
     *     end and rolled back on failure (a bulk enqueue's second statement failing must not leave
     *     its first committed), and auto-commit is switched back on;</li>
     * <li>in the caller's transaction, the work runs inside a savepoint, released on success and
     *     rolled back to on failure, where a failed statement aborts the whole transaction
     *     ({@link Capability#FAILED_STATEMENT_ABORTS_TRANSACTION}) or where the work may write in
     *     more than one statement ({@code severalWrites}): elsewhere the database undoes the failed
     *     statement alone, and a savepoint would be two round trips for nothing.</li>
     * </ul>
     * With {@code severalWrites} false and auto-commit on, the work's one write commits alone.
     */
    public static <T> T guarded(Connection c, Dialect dialect, boolean severalWrites, Work<T> work) throws SQLException {
        if (c.getAutoCommit()) {
            return severalWrites ? inTransaction(c, dialect, work) : work.run(c);
        }
        if (!severalWrites && !dialect.supports(Capability.FAILED_STATEMENT_ABORTS_TRANSACTION)) {
            return work.run(c);
        }
        Savepoint savepoint = c.setSavepoint();
        T result;
        try {
            result = work.run(c);
        } catch (Throwable t) {
            // An Error too (a bulk enqueue's args serializer can throw one after its first
            // chunk was inserted): the caller's transaction must not keep half the work.
            try {
                c.rollback(savepoint);
            } catch (SQLException undo) {
                t.addSuppressed(undo);
            }
            throw t;
        }
        c.releaseSavepoint(savepoint);
        return result;
    }
}
