package dev.skipjack.internal.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The connection a transactional handler gets: the job's own, minus the calls that would end or
 * detach the job's transaction behind Skipjack's back (commit, rollback of the whole transaction,
 * auto-commit, close). A handler that committed would make its writes permanent without the job's
 * completion; one that rolled back would undo the claim itself.
 * <p>
 * Its first call, whatever it is, runs {@code beforeFirstUse} first: the runner takes the job's
 * savepoint there, so a handler that never touches its connection costs no savepoint, and one that
 * does has every statement it sends (also through {@code unwrap} or {@code getMetaData()}) after it.
 */
final class HandlerConnection {

    private static final Set<String> REFUSED = Set.of("commit", "setAutoCommit", "close", "abort");

    private HandlerConnection() {
    }

    /** Work done before the handler's first call on its connection. */
    @FunctionalInterface
    interface FirstUse {
        void run() throws SQLException;
    }

    static Connection wrap(Connection jobTransaction, FirstUse beforeFirstUse) {
        AtomicBoolean used = new AtomicBoolean();
        InvocationHandler handler = (proxy, method, args) -> {
            String name = method.getName();
            if (!isObjectMethod(name) && !used.get()) {
                // Marked used only once the savepoint is taken: a handler that catches a failure to
                // take it and goes on gets it at its next call, never statements without one.
                beforeFirstUse.run();
                used.set(true);
            }
            boolean wholeRollback = name.equals("rollback") && (args == null || args.length == 0);
            if (REFUSED.contains(name) || wholeRollback) {
                throw new SQLException("a transactional handler must not call Connection." + name
                        + "(): Skipjack commits or rolls back the job's transaction; throw to roll back", "25000");
            }
            try {
                return method.invoke(jobTransaction, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                handler);
    }

    /** Methods of Object (a log line printing the connection) are not a use of the transaction. */
    private static boolean isObjectMethod(String name) {
        return name.equals("toString") || name.equals("hashCode") || name.equals("equals");
    }
}
