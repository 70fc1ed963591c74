package dev.skipjack.support;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Records what code does on a real connection: the statements it prepares and the transactions it
 * commits or rolls back, so a test can count round trips. Not a mock: every call goes on to the database.
 */
public final class StatementLog {

    private final List<String> prepared = new CopyOnWriteArrayList<>();
    private final List<String> executed = new CopyOnWriteArrayList<>();
    private final AtomicInteger commits = new AtomicInteger();
    private final AtomicInteger rollbacks = new AtomicInteger();

    /** The SQL of every statement prepared through a wrapped connection, in order. */
    public List<String> prepared() {
        return prepared;
    }

    /** The SQL of every prepared statement executed through a wrapped connection, once per execution, in order. */
    public List<String> executed() {
        return executed;
    }

    /** Explicit commits through a wrapped connection (a statement in auto-commit is not one). */
    public int commits() {
        return commits.get();
    }

    /** Whole-transaction rollbacks through a wrapped connection (not to a savepoint). */
    public int rollbacks() {
        return rollbacks.get();
    }

    /** Forgets what was recorded so far. */
    public void clear() {
        prepared.clear();
        executed.clear();
        commits.set(0);
        rollbacks.set(0);
    }

    public Connection wrap(Connection target) {
        return (Connection) Proxy.newProxyInstance(StatementLog.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args != null && args.length > 0) {
                        prepared.add((String) args[0]);
                        return wrap((PreparedStatement) forward(method, target, args), (String) args[0]);
                    } else if (method.getName().equals("commit")) {
                        commits.incrementAndGet();
                    } else if (method.getName().equals("rollback") && method.getParameterCount() == 0) {
                        rollbacks.incrementAndGet();
                    }
                    return forward(method, target, args);
                });
    }

    private PreparedStatement wrap(PreparedStatement target, String sql) {
        return (PreparedStatement) Proxy.newProxyInstance(StatementLog.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("execute") && method.getParameterCount() == 0) {
                        executed.add(sql);
                    }
                    return forward(method, target, args);
                });
    }

    /** A data source whose connections are {@linkplain #wrap(Connection) wrapped}. */
    public DataSource wrap(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(StatementLog.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = forward(method, target, args);
                    return method.getName().equals("getConnection") ? wrap((Connection) result) : result;
                });
    }

    /** Calls {@code method} on {@code target}, throwing what it threw: the body of a forwarding proxy. */
    public static Object forward(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
