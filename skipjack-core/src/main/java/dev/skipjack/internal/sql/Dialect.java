package dev.skipjack.internal.sql;

import dev.skipjack.Backend;
import dev.skipjack.DatabaseClock;
import dev.skipjack.UnsupportedDatabaseException;

import java.util.Set;

/**
 * One database backend: where its SQL lives ({@code dev/skipjack/sql/<id>/} for statements,
 * {@code dev/skipjack/migrations/<id>/} for the schema) and what it can do. Every statement
 * Skipjack runs is read through a dialect's {@link SqlStatements}; no other code holds SQL text,
 * so a new backend is a new implementation plus its resource folder, and callers do not change.
 */
public sealed interface Dialect permits PostgresDialect {

    /** PostgreSQL 12 and later. */
    Dialect POSTGRES = new PostgresDialect();

    /**
     * The dialect of a backend.
     *
     * @throws UnsupportedDatabaseException for a backend whose dialect is not built yet
     */
    static Dialect of(Backend backend) {
        return switch (backend) {
            case POSTGRESQL -> POSTGRES;
            case MARIADB, MYSQL, SQLITE -> throw new UnsupportedDatabaseException(backend.productName(), "(any version)",
                    "support for " + backend.productName() + " is not built yet");
        };
    }

    /** The database family this dialect speaks to. */
    Backend backend();

    /** The folder name of this dialect's SQL resources, e.g. {@code postgres}. */
    String id();

    /** The capabilities this backend has. */
    Set<Capability> capabilities();

    default boolean supports(Capability capability) {
        return capabilities().contains(capability);
    }

    /** The SQL time expression a statement reads as "now" at its transaction's start, shifted by {@code offsetMicros}. */
    String transactionTime(long offsetMicros);

    /** The SQL time expression of the statement's own start, shifted by {@code offsetMicros}. */
    String statementTime(long offsetMicros);

    /** This dialect's statements for one schema and table prefix, with "now" read from {@code clock}. */
    default SqlStatements statements(TableNames names, DatabaseClock clock) {
        return new SqlStatements(this, names, clock);
    }

    /** The resource path of a migration script of this dialect. */
    default String migrationResource(int version, String name) {
        return String.format("migrations/%s/V%03d__%s.sql", id(), version, name);
    }
}
