package dev.skipjack.internal.worker;

import java.sql.SQLException;
import java.util.function.Predicate;

/**
 * Finds the database's own error behind what a handler or a driver threw: handlers wrap it in
 * their exceptions, and only its SQLSTATE or vendor code says what happened (a statement timeout,
 * a deadlock).
 */
final class SqlCauses {

    /** Causes looked through at most, so a cause chain with a cycle cannot loop. */
    private static final int MAX_DEPTH = 20;

    private SqlCauses() {
    }

    /** Whether {@code t} or one of its causes is an {@link SQLException} that passes {@code test}. */
    static boolean any(Throwable t, Predicate<SQLException> test) {
        Throwable c = t;
        for (int depth = 0; c != null && depth < MAX_DEPTH; depth++, c = c.getCause()) {
            if (c instanceof SQLException e && test.test(e)) {
                return true;
            }
        }
        return false;
    }
}
