package dev.skipjack.dashboard;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.embedded.EmbeddedDatabase;

/**
 * The PostgreSQL a dashboard test class reads: the server SKIPJACK_TEST_PG_URL names, or else an
 * embedded one of its own; with a pool on it. {@link #close()} closes both.
 */
final class TestPostgres implements AutoCloseable {

    private final EmbeddedDatabase embedded;
    private final HikariDataSource dataSource;

    private TestPostgres(EmbeddedDatabase embedded, HikariDataSource dataSource) {
        this.embedded = embedded;
        this.dataSource = dataSource;
    }

    static TestPostgres start(int poolSize) {
        String external = System.getenv("SKIPJACK_TEST_PG_URL");
        EmbeddedDatabase embedded = external != null && !external.isBlank() ? null : EmbeddedDatabase.start();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(embedded == null ? external : embedded.jdbcUrl());
        config.setMaximumPoolSize(poolSize);
        return new TestPostgres(embedded, new HikariDataSource(config));
    }

    HikariDataSource dataSource() {
        return dataSource;
    }

    /**
     * A new, empty database on this server with a pool of its own (a shard, for the sharded view);
     * the caller closes the pool. {@code name} must be a plain lower-case identifier.
     */
    HikariDataSource newDatabase(String name, int poolSize) {
        if (!name.matches("[a-z][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("not a plain database name: " + name);
        }
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("creating database " + name + " failed", e);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(dataSource.getJdbcUrl().replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name));
        config.setMaximumPoolSize(poolSize);
        return new HikariDataSource(config);
    }

    @Override
    public void close() {
        dataSource.close();
        if (embedded != null) {
            embedded.close();
        }
    }
}
