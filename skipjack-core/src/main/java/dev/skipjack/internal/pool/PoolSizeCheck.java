package dev.skipjack.internal.pool;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Compares the connections a started node can use at once with the most its pool hands out, and
 * says so once when the pool is smaller. Nothing deadlocks then, but the parts queue for
 * connections: with 2 connections and 16 transactional job threads, jobs ran one at a time with no
 * sign why (issue 14).
 *
 * <p>The core depends on no pool: the maximum is read by reflection from the getters of the common
 * pools (HikariCP {@code getMaximumPoolSize}, Commons DBCP 2 {@code getMaxTotal}, Tomcat JDBC
 * {@code getMaxActive}, c3p0 {@code getMaxPoolSize}); a DataSource that has none is not checked.
 */
public final class PoolSizeCheck {

    private static final Logger log = LoggerFactory.getLogger(PoolSizeCheck.class);
    private static final String[] MAXIMUM_GETTERS = {"getMaximumPoolSize", "getMaxTotal", "getMaxActive", "getMaxPoolSize"};

    private PoolSizeCheck() {
    }

    /** The most connections {@code dataSource} hands out at once, when it is a pool that says. */
    public static OptionalInt maximum(DataSource dataSource) {
        for (String name : MAXIMUM_GETTERS) {
            try {
                Method getter = dataSource.getClass().getMethod(name);
                if (getter.getReturnType() == int.class) {
                    int max = (int) getter.invoke(dataSource);
                    // DBCP and Tomcat say "no limit" with a negative number.
                    return max > 0 ? OptionalInt.of(max) : OptionalInt.empty();
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // Not this pool's getter (or not readable): try the next.
            }
        }
        return OptionalInt.empty();
    }

    /**
     * Logs one WARN when the pool behind {@code dataSource} is smaller than the sum of
     * {@code needs} (what uses connections at once, and how many); returns whether it did.
     */
    public static boolean warnIfTooSmall(DataSource dataSource, String workerId, Map<String, Integer> needs) {
        OptionalInt max = maximum(dataSource);
        int needed = needs.values().stream().mapToInt(Integer::intValue).sum();
        if (max.isEmpty() || max.getAsInt() >= needed) {
            return false;
        }
        String parts = needs.entrySet().stream().filter(e -> e.getValue() > 0)
                .map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", "));
        log.warn("Skipjack worker {}: the connection pool ({}) holds at most {} connections, but this node uses up to {}"
                        + " at once ({}); its parts will wait for connections and jobs run slower than the queues'"
                        + " concurrency allows (transactional jobs hold a connection each for their whole run)."
                        + " Raise the pool's maximum size to at least {}, plus what the application itself uses,"
                        + " or lower the queues' concurrency.",
                workerId, dataSource.getClass().getSimpleName(), max.getAsInt(), needed, parts, needed);
        return true;
    }
}
