package dev.skipjack.cli;

import dev.skipjack.embedded.EmbeddedDatabase;

/**
 * The PostgreSQL a CLI test class runs its commands against: the server SKIPJACK_TEST_PG_URL
 * names, or else an embedded one of its own, stopped by {@link #close()}.
 */
final class TestPostgres implements AutoCloseable {

    private final EmbeddedDatabase embedded;
    private final String url;

    private TestPostgres(EmbeddedDatabase embedded, String url) {
        this.embedded = embedded;
        this.url = url;
    }

    static TestPostgres start() {
        String external = System.getenv("SKIPJACK_TEST_PG_URL");
        if (external != null && !external.isBlank()) {
            return new TestPostgres(null, external);
        }
        EmbeddedDatabase started = EmbeddedDatabase.start();
        return new TestPostgres(started, started.jdbcUrl());
    }

    String url() {
        return url;
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
