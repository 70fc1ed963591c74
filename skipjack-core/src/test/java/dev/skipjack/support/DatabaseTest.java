package dev.skipjack.support;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.JobInfo;
import dev.skipjack.JobState;
import dev.skipjack.Skipjack;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Base of tests that run against a real test database: the backend's pooled DataSource (one per
 * backend per JVM; on SQLite a new database file per test), a fresh schema per test, and clients
 * that are stopped after each test. Runs on PostgreSQL; {@link EveryBackendTest} runs a test class on every backend.
 */
public abstract class DatabaseTest {

    protected HikariDataSource dataSource;
    protected String schema;
    private final List<Skipjack> clients = new ArrayList<>();

    /** The backend this test runs on. */
    protected TestBackend backend() {
        return TestBackend.POSTGRESQL;
    }

    @BeforeEach
    void freshSchema(TestInfo info) {
        dataSource = backend().testDataSource();
        schema = backend().freshSchema(getClass().getSimpleName());
    }

    @AfterEach
    void stopClients() {
        for (Skipjack s : clients) {
            s.stop(Duration.ofSeconds(5));
        }
        clients.clear();
        if (backend().ownsTestDataSource()) {
            dataSource.close();
        }
    }

    /** A builder on this test's schema with intervals short enough for tests. */
    protected Skipjack.Builder builder() {
        return Skipjack.builder(dataSource)
                .schema(schema)
                .pollInterval(Duration.ofMillis(50))
                .promoteInterval(Duration.ofMillis(50))
                .rescueInterval(Duration.ofMillis(200))
                .shutdownTimeout(Duration.ofSeconds(5));
    }

    /** Builds, migrates and remembers the client so it is stopped after the test. */
    protected Skipjack client(Skipjack.Builder builder) {
        Skipjack s = builder.build();
        s.migrate();
        clients.add(s);
        return s;
    }

    /** A table of this test's schema, quoted for the backend, e.g. {@code table("skipjack_leader")}. */
    protected String table(String name) {
        return backend().qualified(schema, name);
    }

    /** SQL for the database clock moved by {@code shift}, e.g. {@code nowPlus(Duration.ofSeconds(-1))}. */
    protected String nowPlus(Duration shift) {
        return backend().nowPlus(shift);
    }

    protected String jobsTable() {
        return backend().qualified(schema, "skipjack_jobs");
    }

    /** Whether {@code thread} is inside a method named {@code methodName} right now (for "is it waiting there yet"). */
    public static boolean inStack(Thread thread, String methodName) {
        return java.util.Arrays.stream(thread.getStackTrace()).anyMatch(frame -> frame.getMethodName().equals(methodName));
    }

    /** Polls {@code condition} until it holds or {@code timeout} passes; fails the test on timeout. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    protected JobInfo awaitState(Skipjack s, long id, JobState state, Duration timeout) {
        try {
            await("job " + id + " to be " + state, timeout, () -> s.find(id).orElseThrow().state() == state);
        } catch (AssertionError e) {
            // Say where it got to: a job stuck elsewhere (or gone past) reads differently from one not yet there.
            throw new AssertionError(e.getMessage() + "; it is " + s.find(id).map(JobInfo::toString).orElse("gone"), e);
        }
        return s.find(id).orElseThrow();
    }

    protected long queryLong(String sql, Object... params) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    protected void execute(String sql) {
        TestDatabase.execute(dataSource, sql);
    }
}
