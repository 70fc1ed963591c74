package dev.skipjack.internal.sql;

import dev.skipjack.Backend;

import java.util.EnumSet;
import java.util.Set;

/** PostgreSQL: every capability Skipjack uses. */
public final class PostgresDialect implements Dialect {

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.allOf(Capability.class));

    PostgresDialect() {
    }

    @Override
    public Backend backend() {
        return Backend.POSTGRESQL;
    }

    @Override
    public String id() {
        return "postgres";
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    // Unshifted, the text is exactly the plain function call: production statements are the same
    // text, and plan, as before the clock could move.
    @Override
    public String transactionTime(long offsetMicros) {
        return offsetMicros == 0 ? "now()" : "(now() + " + offsetMicros + " * interval '1 microsecond')";
    }

    @Override
    public String statementTime(long offsetMicros) {
        return offsetMicros == 0 ? "statement_timestamp()"
                : "(statement_timestamp() + " + offsetMicros + " * interval '1 microsecond')";
    }

    @Override
    public String toString() {
        return "PostgreSQL";
    }
}
