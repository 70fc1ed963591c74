package dev.skipjack.spring;

import dev.skipjack.embedded.EmbeddedDatabase;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL these tests run against: the server {@code SKIPJACK_TEST_PG_URL} names, else one
 * embedded server per test JVM (as the core's tests do). Each context gets a schema of its own.
 */
final class TestPostgres {

    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static String jdbcUrl;

    private TestPostgres() {
    }

    static synchronized String jdbcUrl() {
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

    /** A schema name no other context of this JVM uses (Skipjack's migration creates it). */
    static String freshSchema() {
        return "boot_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    }
}
