package dev.skipjack.internal.sql;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One row a changing statement returned ({@link Dialect#updateReturning}). Columns are numbered
 * from 1, as in JDBC. Held in memory because on the MySQL family the rows are read before the
 * change is applied.
 */
public final class Row {

    private final Object[] values;

    private Row(Object[] values) {
        this.values = values;
    }

    /** Copies the current row of {@code rs}. */
    static Row of(ResultSet rs) throws SQLException {
        Object[] values = new Object[rs.getMetaData().getColumnCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = rs.getObject(i + 1);
        }
        return new Row(values);
    }

    public long getLong(int column) {
        return ((Number) values[column - 1]).longValue();
    }

    /** A nullable integer column: null for SQL NULL. */
    public Long getLongOrNull(int column) {
        Object v = values[column - 1];
        return v == null ? null : ((Number) v).longValue();
    }

    public int getInt(int column) {
        return ((Number) values[column - 1]).intValue();
    }

    public String getString(int column) {
        Object v = values[column - 1];
        return v == null ? null : v.toString();
    }
}
