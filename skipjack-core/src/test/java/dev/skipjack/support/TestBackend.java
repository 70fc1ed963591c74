package dev.skipjack.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.Backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A database the guarantee tests run on. PostgreSQL and MariaDB always run (embedded unless an
 * environment variable names a server); MySQL runs only where {@code SKIPJACK_TEST_MYSQL_URL}
 * names one, since no MySQL 8 server can be installed on the build machines. SQLite always runs,
 * on a new database file per test ({@link #testDataSource()}).
 */
public enum TestBackend {
    POSTGRESQL(Backend.POSTGRESQL, TestDatabase::jdbcUrl),
    MARIADB(Backend.MARIADB, TestMariaDb::jdbcUrl),
    MYSQL(Backend.MYSQL, () -> System.getenv("SKIPJACK_TEST_MYSQL_URL")),
    SQLITE(Backend.SQLITE, TestSqlite::jdbcUrl);

    private static final Map<TestBackend, HikariDataSource> POOLS = new ConcurrentHashMap<>();

    private final Backend backend;
    private final Supplier<String> url;

    TestBackend(Backend backend, Supplier<String> url) {
        this.backend = backend;
        this.url = url;
    }

    /**
     * The backends to run guarantee tests on: for {@code @MethodSource}/{@code @FieldSource}. The
     * system property {@code skipjack.test.backends} (e.g. {@code postgresql}, or
     * {@code postgresql,sqlite}) narrows them, for a second run on another server version.
     */
    public static List<TestBackend> available() {
        List<TestBackend> out = new ArrayList<>(List.of(POSTGRESQL, MARIADB, SQLITE));
        String mysql = System.getenv("SKIPJACK_TEST_MYSQL_URL");
        if (mysql != null && !mysql.isBlank()) {
            out.add(MYSQL);
        }
        String only = System.getProperty("skipjack.test.backends", "").trim();
        if (!only.isEmpty()) {
            List<String> names = List.of(only.toUpperCase(java.util.Locale.ROOT).split("\\s*,\\s*"));
            for (String name : names) {
                valueOf(name); // an unknown name fails the run instead of silently running nothing
            }
            out.removeIf(b -> !names.contains(b.name()));
        }
        return out;
    }

    public Backend backend() {
        return backend;
    }

    public String jdbcUrl() {
        return url.get();
    }

    /** A new pool on this backend; the caller closes it. */
    public HikariDataSource newDataSource(int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(30_000);
        return new HikariDataSource(config);
    }

    private static final java.util.concurrent.atomic.AtomicInteger SHARD_DATABASES = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * One new database per name ({@link #newDatabase}), by name in the given order: the shards of a
     * sharded test; the caller closes the pools.
     */
    public Map<String, HikariDataSource> newShardDatabases(List<String> names, int poolSize) {
        Map<String, HikariDataSource> shards = new java.util.LinkedHashMap<>();
        for (String name : names) {
            shards.put(name, newDatabase("shards_of_" + ProcessHandle.current().pid() + "_" + SHARD_DATABASES.incrementAndGet(), poolSize));
        }
        return shards;
    }

    /**
     * A pool on a new, empty database of this backend's server (on SQLite a new file), for a test
     * that needs several databases, such as shards; the caller closes it. {@code name} must be a
     * plain lower-case identifier, unique in this JVM run (e.g. from {@link #freshSchema}).
     */
    public HikariDataSource newDatabase(String name, int poolSize) {
        if (!name.matches("[a-z][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("not a plain database name: " + name);
        }
        String url;
        if (this == SQLITE) {
            url = TestSqlite.anotherDatabase();
        } else {
            try (java.sql.Connection c = sharedDataSource().getConnection(); java.sql.Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + name);
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("could not create database " + name + ": " + e.getMessage(), e);
            }
            url = jdbcUrl().replaceFirst("^(jdbc:[a-z]+://[^/]+/)[^?]*", "$1" + name);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }

    /** The pool shared by every test on this backend in this JVM, closed when the JVM ends. */
    public HikariDataSource sharedDataSource() {
        return POOLS.computeIfAbsent(this, b -> {
            HikariDataSource ds = b.newDataSource(24);
            Runtime.getRuntime().addShutdownHook(new Thread(ds::close));
            return ds;
        });
    }

    /**
     * The DataSource one test runs on: the shared pool, or on SQLite a new pool on a new database
     * file, which the test closes ({@link #ownsTestDataSource()}).
     */
    public HikariDataSource testDataSource() {
        if (this != SQLITE) {
            return sharedDataSource();
        }
        TestSqlite.freshDatabase();
        return newDataSource(24);
    }

    /** Whether {@link #testDataSource()} made a pool for the test alone, to close after it. */
    public boolean ownsTestDataSource() {
        return this == SQLITE;
    }

    /** A schema for one test: a fresh one, or on SQLite (no schemas; a file per test) {@code main}. */
    public String freshSchema(String hint) {
        return this == SQLITE ? "main" : TestDatabase.freshSchema(hint);
    }

    /** SQL for the database clock moved by {@code shift} (negative: the past), for the tests' own rows. */
    public String nowPlus(java.time.Duration shift) {
        long micros = shift.toNanos() / 1_000;
        return switch (this) {
            case POSTGRESQL -> "(now() + " + micros + " * interval '1 microsecond')";
            case SQLITE -> "(CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000 + " + micros + ")";
            default -> "(UTC_TIMESTAMP(6) + INTERVAL " + micros + " MICROSECOND)";
        };
    }

    /** SQL for the database's own clock right now (not the statement's start), in epoch microseconds. */
    public String epochMicrosNow() {
        return switch (this) {
            case POSTGRESQL -> "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint";
            case SQLITE -> "(CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000)";
            default -> "TIMESTAMPDIFF(MICROSECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), UTC_TIMESTAMP(6))";
        };
    }

    /** A FROM item of {@code n} rows, for the tests' bulk inserts. */
    public String series(int n) {
        return switch (this) {
            case POSTGRESQL -> "generate_series(1, " + n + ")";
            case SQLITE -> "(WITH RECURSIVE s (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < " + n + ")"
                    + " SELECT x FROM s) AS series";
            default -> "JSON_TABLE(CONCAT('[', REPEAT('1,', " + (n - 1) + "), '1]'), '$[*]' COLUMNS (x INT PATH '$')) AS series";
        };
    }

    /** SQL reading integer field {@code field} of JSON column {@code column}. */
    public String jsonInt(String column, String field) {
        return switch (this) {
            case POSTGRESQL -> "(" + column + "->>'" + field + "')::bigint";
            case SQLITE -> "CAST(json_extract(" + column + ", '$." + field + "') AS INTEGER)";
            default -> "CAST(JSON_VALUE(" + column + ", '$." + field + "') AS SIGNED)";
        };
    }

    /** SQL for the length of the JSON array in {@code column}. */
    public String jsonLength(String column) {
        return switch (this) {
            case POSTGRESQL -> "jsonb_array_length(" + column + ")";
            case SQLITE -> "json_array_length(" + column + ")";
            default -> "JSON_LENGTH(" + column + ")";
        };
    }

    /** {@code schema.table} quoted as this backend quotes identifiers, for the tests' own SQL. */
    public String qualified(String schema, String table) {
        char q = this == POSTGRESQL || this == SQLITE ? '"' : '`';
        return q + schema + q + "." + q + table + q;
    }
}
