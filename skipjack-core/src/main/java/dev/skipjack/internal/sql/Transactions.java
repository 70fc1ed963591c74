package dev.skipjack.internal.sql;

import java.sql.Connection;
import java.sql.SQLException;
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

    public static <T> T inTransaction(DataSource dataSource, Work<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (Throwable t) {
                // Roll back before restoring auto-commit: switching it on would commit the work.
                c.rollback();
                throw t;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }
}
