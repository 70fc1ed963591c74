package dev.skipjack.internal.sql;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A pooled connection one thread keeps across many short uses, whose prepared statements are kept
 * with it: {@link #connection()} answers {@code prepareStatement(sql)} with the statement it
 * prepared for the same text before, and closing such a statement only clears its parameters.
 * For a database whose driver has no statement cache of its own (sqlite-jdbc; Hikari keeps none
 * on purpose): SQLite compiles every statement again on each {@code prepareStatement}, and the
 * claim round's three statements (the claim with its JSON list and RETURNING, the completion's
 * join of two JSON arrays) took 6 % of the fetcher thread's time in a 200,000-job drain, once
 * per round of at most 800 jobs, in the one thread every SQLite write of the drain goes through.
 * <p>
 * Held no longer than the caller says ({@link #heldFor}): a connection the pool does not see for
 * long trips its leak detection, when an application turned it on, and misses its maximum
 * lifetime. Not thread-safe: one thread uses it, then {@linkplain #close() closes} it, which
 * closes its statements and hands the connection back to the pool.
 */
public final class HeldConnection implements AutoCloseable {

    private final Connection target;
    private final Connection view;
    private final Map<String, PreparedStatement> prepared = new HashMap<>();
    private final long takenAtNanos = System.nanoTime();

    private HeldConnection(Connection target) {
        this.target = target;
        this.view = (Connection) Proxy.newProxyInstance(HeldConnection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> onConnection(method, args));
    }

    /** A connection of {@code dataSource} in auto-commit, held until {@link #close()}. */
    public static HeldConnection take(DataSource dataSource) throws SQLException {
        return new HeldConnection(Transactions.autoCommit(dataSource));
    }

    /**
     * The held connection as its users see it: statements prepared once, {@code close()} ignored
     * (the holder decides when it goes back to the pool).
     */
    public Connection connection() {
        return view;
    }

    /** Nanoseconds since it was taken from the pool. */
    public long heldFor() {
        return System.nanoTime() - takenAtNanos;
    }

    /** Closes every kept statement and hands the connection back to the pool; failures are added to the first. */
    @Override
    public void close() throws SQLException {
        SQLException failure = null;
        for (PreparedStatement ps : prepared.values()) {
            try {
                ps.close();
            } catch (SQLException e) {
                failure = addTo(failure, e);
            }
        }
        prepared.clear();
        try {
            target.close();
        } catch (SQLException e) {
            failure = addTo(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static SQLException addTo(SQLException first, SQLException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    private Object onConnection(Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (name.equals("close") && method.getParameterCount() == 0) {
            return null;
        }
        if (name.equals("prepareStatement") && method.getParameterCount() == 1) {
            String text = (String) args[0];
            PreparedStatement ps = prepared.get(text);
            if (ps == null) {
                ps = kept(target.prepareStatement(text));
                prepared.put(text, ps);
            }
            return ps;
        }
        return forward(method, target, args);
    }

    /** {@code ps} with close() clearing its parameters instead, and getConnection() answering the held view. */
    private PreparedStatement kept(PreparedStatement ps) {
        return (PreparedStatement) Proxy.newProxyInstance(HeldConnection.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> {
                    if (method.getParameterCount() == 0) {
                        switch (method.getName()) {
                            case "close":
                                ps.clearParameters();
                                return null;
                            case "getConnection":
                                return view;
                            default:
                                break;
                        }
                    }
                    return forward(method, ps, args);
                });
    }

    private static Object forward(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
