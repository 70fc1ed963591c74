package dev.skipjack.internal.sql;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Bind parameters in statement order, bound by a {@link Dialect}: lists become an array on
 * PostgreSQL and JSON text on the MySQL family, so the caller states values once for every backend.
 */
public final class Params {

    /** One parameter: binds itself at an index. */
    @FunctionalInterface
    private interface Param {
        void bind(PreparedStatement ps, int index, Dialect dialect) throws SQLException;
    }

    private final List<Param> items = new ArrayList<>();

    private Params() {
    }

    public static Params of() {
        return new Params();
    }

    public Params text(String value) {
        items.add((ps, i, d) -> ps.setString(i, value));
        return this;
    }

    public Params integer(int value) {
        items.add((ps, i, d) -> ps.setInt(i, value));
        return this;
    }

    public Params bigint(long value) {
        items.add((ps, i, d) -> ps.setLong(i, value));
        return this;
    }

    /** A bigint that may be null. */
    public Params bigintOrNull(Long value) {
        items.add((ps, i, d) -> {
            if (value == null) {
                ps.setNull(i, Types.BIGINT);
            } else {
                ps.setLong(i, value);
            }
        });
        return this;
    }

    /** A list of {@code type} as one parameter; null binds SQL NULL (e.g. "no filter"). */
    public Params list(ListType type, Collection<?> values) {
        items.add((ps, i, d) -> d.setList(ps, i, type, values));
        return this;
    }

    /** Binds every parameter from {@code first} on; returns the next free index. */
    public int bind(PreparedStatement ps, int first, Dialect dialect) throws SQLException {
        int i = first;
        for (Param p : items) {
            p.bind(ps, i++, dialect);
        }
        return i;
    }
}
