package dev.skipjack.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The SQLite databases the tests run against: a new file per test (SQLite has no schemas to keep
 * tests apart, and a file costs a millisecond), in one temporary directory per test JVM, with the
 * settings Skipjack requires (WAL, busy timeout, IMMEDIATE transactions; docs/backends.md).
 */
final class TestSqlite {

    /** The connection settings of the recipe in docs/backends.md. */
    static final String SETTINGS = "journal_mode=WAL&busy_timeout=10000&transaction_mode=IMMEDIATE";

    private static Path directory;
    private static volatile String current;

    private TestSqlite() {
    }

    /** A new, empty database file; it is the current one until the next call. */
    static synchronized String freshDatabase() {
        current = anotherDatabase();
        return current;
    }

    /** A new, empty database file that does not become the current one (a second database for one test). */
    static synchronized String anotherDatabase() {
        try {
            if (directory == null) {
                directory = Files.createTempDirectory("skipjack-sqlite-");
                directory.toFile().deleteOnExit();
            }
            Path file = Files.createTempFile(directory, "test-", ".db");
            Files.delete(file); // SQLite creates it, in WAL mode from the first connection
            return "jdbc:sqlite:" + file + "?" + SETTINGS;
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a SQLite test database", e);
        }
    }

    /** The current test's database (a new one when no test made one yet). */
    static String jdbcUrl() {
        String url = current;
        return url != null ? url : freshDatabase();
    }
}
