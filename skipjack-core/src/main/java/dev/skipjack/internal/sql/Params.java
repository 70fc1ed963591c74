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
 * Lists paired by position ({@link #rows}) may take one parameter or one per list, as the dialect
 * binds them: each dialect's statement says which.
 */
public final class Params {

    /** One parameter (or, for {@link #rows}, one or more): binds itself at an index. */
    @FunctionalInterface
    private interface Param {
        /** Binds from {@code index} on; returns the next free index. */
        int bind(PreparedStatement ps, int index, Dialect dialect) throws SQLException;
    }

    /** A parameter that takes exactly one index. */
    @FunctionalInterface
    private interface Single {
        void bind(PreparedStatement ps, int index, Dialect dialect) throws SQLException;
    }

    private final List<Param> items = new ArrayList<>();

    private Params() {
    }

    public static Params of() {
        return new Params();
    }

    private Params add(Single single) {
        items.add((ps, i, d) -> {
            single.bind(ps, i, d);
            return i + 1;
        });
        return this;
    }

    public Params text(String value) {
        return add((ps, i, d) -> ps.setString(i, value));
    }

    public Params integer(int value) {
        return add((ps, i, d) -> ps.setInt(i, value));
    }

    public Params bigint(long value) {
        return add((ps, i, d) -> ps.setLong(i, value));
    }

    public Params bool(boolean value) {
        return add((ps, i, d) -> ps.setBoolean(i, value));
    }

    /** An instant as the dialect stores time; null binds NULL. */
    public Params instant(java.time.Instant value) {
        return add((ps, i, d) -> d.setInstant(ps, i, value));
    }

    /** A bigint that may be null. */
    public Params bigintOrNull(Long value) {
        return add((ps, i, d) -> {
            if (value == null) {
                ps.setNull(i, Types.BIGINT);
            } else {
                ps.setLong(i, value);
            }
        });
    }

    /** A list of {@code type} as one parameter; null binds SQL NULL (e.g. "no filter"). */
    public Params list(ListType type, Collection<?> values) {
        return add((ps, i, d) -> d.setList(ps, i, type, values));
    }

    /**
     * Lists of equal length paired by position: row {@code i} is element {@code i} of every list
     * ({@code types} gives each list's element type). Bound by {@link Dialect#setRows}: one
     * parameter per list on PostgreSQL and SQLite, one JSON array of rows on the MySQL family.
     */
    public Params rows(List<ListType> types, List<? extends List<?>> columns) {
        if (types.size() != columns.size()) {
            throw new IllegalArgumentException(types.size() + " types for " + columns.size() + " lists");
        }
        List<ListType> t = List.copyOf(types);
        List<List<?>> cols = List.copyOf(columns);
        items.add((ps, i, d) -> d.setRows(ps, i, t, cols));
        return this;
    }

    /** Binds every parameter from {@code first} on; returns the next free index. */
    public int bind(PreparedStatement ps, int first, Dialect dialect) throws SQLException {
        int i = first;
        for (Param p : items) {
            i = p.bind(ps, i, dialect);
        }
        return i;
    }
}
