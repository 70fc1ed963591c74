package dev.skipjack.internal.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
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
 * A statement sent as SQL text ({@code COMMIT}, or on MySQL/MariaDB a statement that commits
 * implicitly, such as {@code TRUNCATE} or DDL) is not caught: docs/transactional-mode.md says so.
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

    /**
     * The handler's view of {@code jobTransaction}; once {@code over} is set (the handler returned), every
     * call on the connection and on the statements it gave fails: a handler that leaked it to
     * another thread would otherwise write into later jobs' transactions, or into whatever the pool
     * lends the connection for next. The statements and metadata it gives answer
     * {@code getConnection()} with this connection, so a commit through them is refused as on it.
     * {@code unwrap} still gives the driver's own connection, for its APIs (PostgreSQL's COPY): what
     * a handler does with that, like SQL text that commits, is beyond this guard.
     */
    static Connection wrap(Connection jobTransaction, FirstUse beforeFirstUse, AtomicBoolean over) {
        AtomicBoolean used = new AtomicBoolean();
        Connection[] self = new Connection[1];
        InvocationHandler handler = (proxy, method, args) -> {
            String name = method.getName();
            if (isObjectMethod(name)) {
                return objectMethod(proxy, name, jobTransaction, args);
            }
            refuseWhenOver(over, name);
            if (!used.get()) {
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
            Object result = invoke(method, jobTransaction, args);
            if (result instanceof Statement || result instanceof DatabaseMetaData) {
                return backedBy(method.getReturnType(), result, self[0], over);
            }
            return result;
        };
        self[0] = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                handler);
        return self[0];
    }

    /** A statement or metadata object of the handler's connection: its getConnection() is that connection. */
    private static Object backedBy(Class<?> type, Object target, Connection connection, AtomicBoolean over) {
        InvocationHandler handler = (proxy, method, args) -> {
            String name = method.getName();
            if (isObjectMethod(name)) {
                return objectMethod(proxy, name, target, args);
            }
            if (!name.equals("close") && !name.equals("isClosed")) {
                refuseWhenOver(over, name);
            }
            if (name.equals("getConnection")) {
                return connection;
            }
            return invoke(method, target, args);
        };
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[]{type}, handler);
    }

    private static void refuseWhenOver(AtomicBoolean over, String name) throws SQLException {
        if (over.get()) {
            throw new SQLException("the job's transaction is over: its handler returned, and the connection it was"
                    + " given must not be used after (called " + name + ")", "08003");
        }
    }

    /** equals by identity of the proxy (the target never equals its proxy), the rest from the target. */
    private static Object objectMethod(Object proxy, String name, Object target, Object[] args) {
        return switch (name) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> target.toString();
        };
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Methods of Object (a log line printing the connection) are not a use of the transaction. */
    private static boolean isObjectMethod(String name) {
        return name.equals("toString") || name.equals("hashCode") || name.equals("equals");
    }
}
