package dev.skipjack.internal.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * The connection a transactional handler gets: the job's own, minus the calls that would end or
 * detach the job's transaction behind Skipjack's back (commit, rollback of the whole transaction,
 * auto-commit, close). A handler that committed would make its writes permanent without the job's
 * completion; one that rolled back would undo the claim itself.
 */
final class HandlerConnection {

    private static final Set<String> REFUSED = Set.of("commit", "setAutoCommit", "close", "abort");

    private HandlerConnection() {
    }

    static Connection wrap(Connection jobTransaction) {
        InvocationHandler handler = (proxy, method, args) -> {
            String name = method.getName();
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
}
