package dev.skipjack.internal.notify;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The LISTEN side of F-16: one thread per client holds one connection listening on the jobs
 * table's channel and wakes the fetchers of the queues named in each notification, so an idle
 * worker starts a new job within milliseconds instead of at its next poll.
 *
 * <p>Notifications are an accelerator, never the only path: fetchers keep polling. When the
 * connection fails the listener reconnects with backoff and, once listening again, wakes every
 * queue, because inserts committed while it was away were not announced to it.
 *
 * <p>The core does not depend on the PostgreSQL driver at compile time, so pgjdbc's
 * {@code PGConnection.getNotifications(int)} is reached by reflection. With another driver the
 * listener says so once and stops; polling carries on alone.
 */
public final class InsertListener {

    private static final Logger log = LoggerFactory.getLogger(InsertListener.class);

    /**
     * How long one wait for notifications blocks; bounds how quickly {@link #stop()} returns, since
     * nothing but data or the timeout ends the driver's wait. At 250 ms an idle client's stop took
     * up to 240 ms, most of it here; an empty wait every 50 ms costs a couple of system calls.
     */
    static final int RECEIVE_TIMEOUT_MILLIS = 50;
    private static final long STOP_WAIT_MILLIS = 1_000;
    private static final long MAX_RECONNECT_BACKOFF_MILLIS = 5_000;

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final String channel;
    private final Consumer<Set<String>> wakeQueues;
    private final Runnable wakeAll;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running;

    /**
     * @param wakeQueues told the queues a notification named
     * @param wakeAll    told that any queue may have new jobs (payload '*', or just reconnected)
     */
    public InsertListener(DataSource dataSource, SqlStatements sql, String channel, Consumer<Set<String>> wakeQueues,
                          Runnable wakeAll) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.channel = channel;
        this.wakeQueues = wakeQueues;
        this.wakeAll = wakeAll;
        this.thread = new Thread(this::loop, "skipjack-listener");
        this.thread.setDaemon(true);
    }

    public void start() {
        running = true;
        thread.start();
    }

    /**
     * Tells the listener to stop after its current wait, without waiting for it: the caller can
     * stop other parts meanwhile and {@link #stop()} last.
     */
    public void requestStop() {
        running = false;
    }

    /**
     * Stops listening and returns the connection: normally within one receive timeout and an
     * UNLISTEN round trip; waits at most {@link #STOP_WAIT_MILLIS} for a loaded machine or a slow
     * database, as it did when the receive timeout was 250 ms.
     */
    public void stop() {
        running = false;
        try {
            thread.join(STOP_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        long backoff = 100;
        boolean announcedFailure = false;
        while (running) {
            try (Connection c = dataSource.getConnection()) {
                Receiver receiver = Receiver.of(c);
                if (receiver == null) {
                    log.info("the JDBC driver is not pgjdbc: no LISTEN/NOTIFY wake-up on channel {}, polling only", channel);
                    return;
                }
                listen(c, "listen");
                if (announcedFailure) {
                    log.info("listening on channel {} again", channel);
                    announcedFailure = false;
                }
                backoff = 100;
                // Anything committed before LISTEN took effect was not announced to us.
                wakeAll.run();
                try {
                    while (running) {
                        for (String payload : receiver.receive(RECEIVE_TIMEOUT_MILLIS)) {
                            Set<String> queues = InsertNotifications.queuesOf(payload);
                            if (queues.isEmpty()) {
                                wakeAll.run();
                            } else {
                                wakeQueues.accept(queues);
                            }
                        }
                    }
                } catch (SQLException | RuntimeException e) {
                    unlistenOrExposeBreakage(c, e);
                    throw e;
                }
                // Give the pool back a connection that no longer listens.
                listen(c, "unlisten");
            } catch (Throwable t) {
                if (!running) {
                    break;
                }
                if (!announcedFailure) {
                    log.warn("listening on channel {} failed, polling until reconnected: {}", channel, t.toString());
                    announcedFailure = true;
                }
                pause(backoff);
                backoff = Math.min(backoff * 2, MAX_RECONNECT_BACKOFF_MILLIS);
            }
        }
    }

    private void listen(Connection c, String statement) throws SQLException {
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
        try (Statement s = c.createStatement()) {
            s.execute(sql.get(statement, "channel", channel));
        }
    }

    /**
     * After a failed receive: the notifications were read through the driver's own connection, past
     * the pool's proxy, so a pool that learns of dead connections from the errors its proxies see
     * (HikariCP) would take this one back as healthy and hand it to the next borrower within its
     * validation bypass window. Running UNLISTEN through the pool's connection either cleans a live
     * connection for its next user or fails where the pool sees it and evicts the connection.
     */
    private void unlistenOrExposeBreakage(Connection c, Exception receiveFailure) {
        try {
            listen(c, "unlisten");
        } catch (SQLException | RuntimeException e) {
            receiveFailure.addSuppressed(e);
        }
    }

    private void pause(long millis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (running && System.nanoTime() < end) {
            try {
                Thread.sleep(Math.min(50, millis));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }
    }

    /** pgjdbc's notification API, reached by reflection. */
    private static final class Receiver {
        private final Object pgConnection;
        private final Method getNotifications;
        private final Method getParameter;

        private Receiver(Object pgConnection, Method getNotifications, Method getParameter) {
            this.pgConnection = pgConnection;
            this.getNotifications = getNotifications;
            this.getParameter = getParameter;
        }

        static Receiver of(Connection c) throws SQLException {
            Class<?> pgConnectionType = load("org.postgresql.PGConnection", c);
            Class<?> notificationType = load("org.postgresql.PGNotification", c);
            if (pgConnectionType == null || notificationType == null || !c.isWrapperFor(pgConnectionType)) {
                return null;
            }
            try {
                return new Receiver(c.unwrap(pgConnectionType), pgConnectionType.getMethod("getNotifications", int.class),
                        notificationType.getMethod("getParameter"));
            } catch (NoSuchMethodException e) {
                return null;
            }
        }

        private static Class<?> load(String name, Connection c) {
            for (ClassLoader loader : new ClassLoader[] {InsertListener.class.getClassLoader(),
                    Thread.currentThread().getContextClassLoader(), c.getClass().getClassLoader()}) {
                try {
                    return Class.forName(name, false, loader);
                } catch (ClassNotFoundException | RuntimeException e) {
                    // try the next loader
                }
            }
            return null;
        }

        /** Payloads received within {@code timeoutMillis}; empty when none came. */
        String[] receive(int timeoutMillis) throws SQLException {
            try {
                Object[] notifications = (Object[]) getNotifications.invoke(pgConnection, timeoutMillis);
                if (notifications == null) {
                    return new String[0];
                }
                String[] payloads = new String[notifications.length];
                for (int i = 0; i < notifications.length; i++) {
                    payloads[i] = (String) getParameter.invoke(notifications[i]);
                }
                return payloads;
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof SQLException sql) {
                    throw sql;
                }
                throw new SQLException("receiving notifications failed: " + e.getCause(), e.getCause());
            } catch (IllegalAccessException e) {
                throw new SQLException("cannot call pgjdbc's getNotifications: " + e, e);
            }
        }
    }
}
