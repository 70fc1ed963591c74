package dev.skipjack.internal.sql;

import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.function.Function;

/** Small conversions between Java values and JDBC types that several statements share. */
public final class Jdbc {
    private Jdbc() {
    }

    public static <E> Array bigintArray(Connection c, Collection<E> items, Function<E, Long> value) throws SQLException {
        return c.createArrayOf("bigint", items.stream().map(value).toArray(Long[]::new));
    }

    public static <E> Array intArray(Connection c, Collection<E> items, Function<E, Integer> value) throws SQLException {
        return c.createArrayOf("integer", items.stream().map(value).toArray(Integer[]::new));
    }

    public static <E> Array textArray(Connection c, Collection<E> items, Function<E, String> value) throws SQLException {
        return c.createArrayOf("text", items.stream().map(value).toArray(String[]::new));
    }

    public static Array textArray(Connection c, Collection<String> items) throws SQLException {
        return c.createArrayOf("text", items.toArray(String[]::new));
    }

    public static Instant instant(Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }
}
