package dev.skipjack.internal.sql;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns database errors that mean "the setup is wrong", not "this statement failed", into one
 * message that names the fix. Through PgBouncer in transaction mode without
 * {@code prepareThreshold=0}, every loop logged thousands of "prepared statement does not exist"
 * errors with no hint of the cause (issue 14). The {@link Dialect} knows its database's errors;
 * this class says each hint once per process, beside the loops' own error lines.
 */
public final class ConnectionHints {

    private static final Logger log = LoggerFactory.getLogger(ConnectionHints.class);
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

    private ConnectionHints() {
    }

    /** The hint for the first {@link SQLException} among {@code t} and its causes, or null. */
    public static String hint(Dialect dialect, Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException e) {
                for (SQLException s = e; s != null; s = s.getNextException()) {
                    String hint = dialect.misconfigurationHint(s);
                    if (hint != null) {
                        return hint;
                    }
                }
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }

    /**
     * Logs the hint for {@code t} at WARN, once per process for each hint (so a hint is fixed
     * text, without the error's own details); returns it, or null.
     */
    public static String note(Dialect dialect, Throwable t) {
        String hint = hint(dialect, t);
        if (hint != null && SAID.add(hint)) {
            log.warn("Skipjack: {} First seen as: {}", hint, t.toString().lines().findFirst().orElse(""));
        }
        return hint;
    }
}
