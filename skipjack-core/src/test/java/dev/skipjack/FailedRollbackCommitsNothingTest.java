package dev.skipjack;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A transaction of Skipjack's own whose rollback fails commits nothing, ever: not when the pool
 * gets the connection back, not when the next user switches it to auto-commit. Its physical
 * connection is closed instead (abort; sqlite-jdbc's abort does nothing, so there a close), which
 * ends its transaction without a commit. The rollback's failure is
 * injected into real connections (rollback() and a ROLLBACK statement refused while armed); a
 * HikariCP pool of one connection sits on top, as an application's would, so the pool's own
 * handling of a connection it cannot roll back is part of what is tested.
 */
class FailedRollbackCommitsNothingTest extends EveryBackendTest {

    private static final String REFUSED = "rollback refused by the test";

    private final AtomicBoolean refuseRollbacks = new AtomicBoolean();
    /** Rollbacks refused, per connection they were asked of. */
    private final Map<Connection, AtomicInteger> refusals = new ConcurrentHashMap<>();

    record Args(int n) {
    }

    @Test
    void aFailedRollbackAbortsTheConnectionAndNothingIsCommitted() throws Exception {
        client(builder()); // the schema
        String probe = table("rollback_probe");
        execute("CREATE TABLE " + probe + " (n INTEGER)");
        SQLException workFailed = new SQLException("the work failed");
        try (HikariDataSource pool = poolOfOne()) {
            refuseRollbacks.set(true);
            assertThatThrownBy(() -> Transactions.inTransaction(pool, Dialect.of(backend.backend()), c -> {
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("INSERT INTO " + probe + " (n) VALUES (1)");
                }
                throw workFailed;
            })).isSameAs(workFailed);
            refuseRollbacks.set(false);

            assertThat(workFailed.getSuppressed()).extracting(Throwable::getMessage).contains(REFUSED);
            // The next user of the pool's one connection, as Skipjack takes one: auto-commit on.
            try (Connection next = Transactions.autoCommit(pool)) {
                next.isValid(1);
            } catch (SQLException deadConnection) {
                // The aborted connection may come back closed: the pool's business, not a commit.
            }
        }
        assertThat(queryLong("SELECT count(*) FROM " + probe)).as("the insert was never committed").isZero();
    }

    /**
     * A transactional run rolls its transaction back itself when the shutdown took one of its jobs
     * over; when that rollback fails, its connection is abandoned at once: the rollback is not
     * asked again (the run's failure path did, once more, before), and nothing of the run is
     * committed: the handler's write is gone and the job is available again, its attempt not
     * counted. No pool here: a pool's own rollback when the abandoned connection is closed would
     * count as a second one.
     */
    @Test
    void aTransactionalRunWhoseOwnRollbackFailsIsAbandonedAtOnceAndCommitsNothing() throws Exception {
        client(builder()); // the schema
        String probe = table("rollback_probe");
        execute("CREATE TABLE " + probe + " (n INTEGER)");
        JobKind<Args> kind = JobKind.of("stuck-writer", Args.class);
        CountDownLatch wrote = new CountDownLatch(1);
        Skipjack worker = Skipjack.builder(refusingRollbacks(backend.jdbcUrl())).schema(schema)
                .pollInterval(Duration.ofMillis(50)).queue(EnqueueOptions.DEFAULT_QUEUE, 1)
                .transactionalHandler(kind, (job, tx) -> {
                    try (Statement s = tx.createStatement()) {
                        s.executeUpdate("INSERT INTO " + probe + " (n) VALUES (1)");
                    }
                    wrote.countDown();
                    new CountDownLatch(1).await(); // until the shutdown interrupts it
                    return Outcome.complete();
                })
                .build();
        long id = worker.enqueue(kind, new Args(1));
        worker.start();
        assertThat(wrote.await(30, TimeUnit.SECONDS)).as("the handler wrote").isTrue();

        refuseRollbacks.set(true);
        worker.stop(Duration.ofMillis(100));
        refuseRollbacks.set(false);

        assertThat(refusals.values()).as("rollbacks refused, per connection").isNotEmpty()
                .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        Skipjack reader = client(builder());
        // The database ends an abandoned connection's transaction when it sees the connection close.
        JobInfo job = awaitState(reader, id, JobState.AVAILABLE, Duration.ofSeconds(30));
        assertThat(job.attempt()).as("the claim was undone with the transaction").isZero();
        assertThat(queryLong("SELECT count(*) FROM " + probe)).as("the handler's insert was never committed").isZero();
    }

    /** A pool of one connection whose rollbacks fail while {@link #refuseRollbacks} is set. */
    private HikariDataSource poolOfOne() {
        HikariConfig config = new HikariConfig();
        config.setDataSource(refusingRollbacks(backend.jdbcUrl()));
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }

    private DataSource refusingRollbacks(String url) {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getConnection" -> refusingRollbacks(DriverManager.getConnection(url));
                    case "getLoginTimeout" -> 0;
                    case "getLogWriter" -> (PrintWriter) null;
                    case "isWrapperFor" -> false;
                    default -> null; // setLoginTimeout, setLogWriter
                });
    }

    private Connection refusingRollbacks(Connection target) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (refuseRollbacks.get() && method.getName().equals("rollback") && method.getParameterCount() == 0) {
                        throw refused(target);
                    }
                    Object result = forward(method, target, args);
                    return method.getName().equals("createStatement") ? refusingRollbacks((Statement) result, target) : result;
                });
    }

    private Statement refusingRollbacks(Statement target, Connection connection) {
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class},
                (proxy, method, args) -> {
                    if (refuseRollbacks.get() && method.getName().startsWith("execute") && args != null
                            && args[0] instanceof String sql && sql.trim().equalsIgnoreCase("ROLLBACK")) {
                        throw refused(connection);
                    }
                    return forward(method, target, args);
                });
    }

    private SQLException refused(Connection connection) {
        refusals.computeIfAbsent(connection, c -> new AtomicInteger()).incrementAndGet();
        return new SQLException(REFUSED);
    }

    private static Object forward(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
