package dev.skipjack.support;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.embedded.EmbeddedDatabase;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL the tests run against: the server named by {@code SKIPJACK_TEST_PG_URL} when set,
 * otherwise one embedded server started once per test JVM. Each test gets its own schema, so tests
 * never see each other's jobs.
 */
public final class TestDatabase {

    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static volatile String jdbcUrl;

    private TestDatabase() {
    }

    public static synchronized String jdbcUrl() {
        if (jdbcUrl == null) {
            String external = System.getenv("SKIPJACK_TEST_PG_URL");
            if (external != null && !external.isBlank()) {
                jdbcUrl = external;
            } else {
                EmbeddedDatabase db = EmbeddedDatabase.start();
                Runtime.getRuntime().addShutdownHook(new Thread(db::close));
                jdbcUrl = db.jdbcUrl();
            }
        }
        return jdbcUrl;
    }

    /** A pooled DataSource on the test database. */
    public static HikariDataSource dataSource(int poolSize) {
        return TestBackend.POSTGRESQL.newDataSource(poolSize);
    }

    /** A fresh, empty schema name unique to this JVM run. */
    public static String freshSchema(String hint) {
        String name = ("t_" + hint.toLowerCase().replaceAll("[^a-z0-9]", "") + "_" + ProcessHandle.current().pid() + "_"
                + SCHEMAS.incrementAndGet());
        return name.length() > 40 ? name.substring(name.length() - 40).replaceFirst("^[0-9]", "s") : name;
    }

    public static void execute(javax.sql.DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
