package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which database errors Skipjack rolls back and retries: the ones two transactions cause by
 * getting in each other's way (deadlock, lock wait timeout, a busy SQLite writer), and nothing
 * else. Each error here is the database's own, provoked with real connections, so a vendor code
 * the dialect misreads (MySQL Connector/J reports both 1205 and 1213 as SQLState 40001, MariaDB's
 * NOWAIT reports 1205) fails this test.
 */
class TransientConflictTest extends EveryBackendTest {

    @BeforeEach
    void rowsToFightOver() {
        client(builder().kind(JobKind.of("k", Object.class))); // creates the test's schema
        execute("CREATE TABLE " + table("rows") + " (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)");
        execute("INSERT INTO " + table("rows") + " (id, v) VALUES (1, 0), (2, 0)");
    }

    private Dialect dialect() {
        return Dialect.of(backend.backend());
    }

    @Test
    void transactionsInEachOthersWayFailWithAnErrorTheDialectRetries() throws Exception {
        SQLException conflict = backend == TestBackend.SQLITE ? busyWriter() : deadlock();
        assertThat(dialect().isTransientConflict(conflict))
                .as("%s: %s (SQLState %s, code %d)", backend, conflict.getMessage(), conflict.getSQLState(),
                        conflict.getErrorCode())
                .isTrue();
    }

    @Test
    void aLockWaitTimeoutIsRetriedToo() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(backend == TestBackend.MARIADB || backend == TestBackend.MYSQL,
                "a lock wait timeout of its own (1205) exists in the MySQL family only");
        try (Connection holder = dataSource.getConnection(); Connection waiter = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            waiter.setAutoCommit(false);
            update(holder, 1);
            try (Statement s = waiter.createStatement()) {
                s.execute("SET SESSION innodb_lock_wait_timeout = 1");
            }
            SQLException timeout = null;
            try {
                update(waiter, 1);
            } catch (SQLException e) {
                timeout = e;
            } finally {
                waiter.rollback();
                holder.rollback();
            }
            assertThat((Object) timeout).as("the waiter timed out").isNotNull();
            assertThat(timeout.getErrorCode()).isEqualTo(1205);
            assertThat(dialect().isTransientConflict(timeout)).isTrue();
        }
    }

    @Test
    void aConstraintViolationIsNotAConflict() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("INSERT INTO " + table("rows") + " (id, v) VALUES (1, 1)"))
                    .isInstanceOfSatisfying(SQLException.class,
                            e -> assertThat(dialect().isTransientConflict(e)).as(e.getMessage()).isFalse());
        }
    }

    /** Two transactions each lock one row and then want the other's: the database ends one of them. */
    private SQLException deadlock() throws Exception {
        ExecutorService second = Executors.newSingleThreadExecutor();
        try (Connection a = dataSource.getConnection(); Connection b = dataSource.getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            update(a, 1);
            update(b, 2);
            CountDownLatch bIsWaiting = new CountDownLatch(1);
            Future<?> bWantsRow1 = second.submit(() -> {
                bIsWaiting.countDown();
                update(b, 1);
                return null;
            });
            assertThat(bIsWaiting.await(10, TimeUnit.SECONDS)).isTrue();
            List<SQLException> failures = new ArrayList<>();
            // a waits for b's row while b waits for a's: whichever the detector picks fails.
            try {
                update(a, 2);
            } catch (SQLException e) {
                failures.add(e);
                a.rollback(); // frees row 1, so b goes on
            }
            try {
                bWantsRow1.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                failures.add((SQLException) e.getCause());
            }
            a.rollback();
            b.rollback();
            assertThat(failures).as("exactly one transaction was chosen as the deadlock victim").hasSize(1);
            return failures.get(0);
        } finally {
            second.shutdownNow();
        }
    }

    /** SQLite has one writer: a second write transaction gives up after its busy timeout. */
    private SQLException busyWriter() throws Exception {
        try (Connection writer = dataSource.getConnection(); Connection other = dataSource.getConnection()) {
            writer.setAutoCommit(false);
            update(writer, 1); // the IMMEDIATE transaction holds the write lock
            try (Statement s = other.createStatement()) {
                s.execute("PRAGMA busy_timeout = 500"); // this test's pool only: give up sooner
            }
            try {
                other.setAutoCommit(false); // BEGIN IMMEDIATE: asks for the write lock at once
                update(other, 2);
                throw new AssertionError("a second writer got the write lock");
            } catch (SQLException e) {
                return e;
            } finally {
                try {
                    other.rollback();
                } catch (SQLException noTransaction) {
                    // The refused BEGIN IMMEDIATE left no transaction to roll back.
                }
                writer.rollback();
            }
        }
    }

    private void update(Connection c, int id) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + table("rows") + " SET v = v + 1 WHERE id = " + id);
        }
    }
}
