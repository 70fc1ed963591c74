package dev.skipjack.internal.sql;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

    /**
     * Copies every row of {@code rs}. Integer and text columns are read with their typed getters,
     * chosen once per result set from its metadata: {@code getObject} looks a column's type up
     * again for every value, which on the claim's result (13 columns, hundreds of rows a round)
     * was a visible part of a worker's CPU. Other types go through {@code getObject}.
     */
    static List<Row> all(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int[] kinds = new int[meta.getColumnCount()];
        for (int i = 0; i < kinds.length; i++) {
            kinds[i] = readerOf(meta.getColumnType(i + 1));
        }
        return copy(rs, kinds);
    }

    /**
     * Copies every row of {@code rs} with {@code getObject}, for SQLite: its driver answers
     * {@code getObject} from the value's own storage class (a native call), while
     * {@code getColumnType} matches the column's declared type against regular expressions, 13
     * times a claim, and was a large compilation in a fresh worker's drain. Integers come back as
     * {@code Integer} or {@code Long} by size; the getters below take any {@code Number}.
     */
    static List<Row> allByStoredType(ResultSet rs) throws SQLException {
        int[] kinds = new int[rs.getMetaData().getColumnCount()];
        Arrays.fill(kinds, AS_OBJECT);
        return copy(rs, kinds);
    }

    /** A column's type, as the statement that returns it promises. */
    public enum ColumnType {
        /** An integer of any size, never null. */
        BIGINT(AS_LONG_NOT_NULL),
        /** An integer of any size, or null. */
        NULLABLE_BIGINT(AS_LONG),
        /** Text, or null. */
        TEXT(AS_STRING);

        private final int reader;

        ColumnType(int reader) {
            this.reader = reader;
        }
    }

    /**
     * The types of a result's columns, in order, declared by the code that wrote its statement:
     * each column is read with one typed getter and no metadata. On SQLite a value read by its
     * stored type costs the driver two native calls ({@link #allByStoredType}), a typed one call:
     * the claim's 13 columns, read for every claimed job on the fetcher thread, were 14 % of that
     * thread's time in a 200,000-job drain. The result's column count is checked once per result
     * (a field of the result set on every driver here): a column added to a statement and not
     * declared would otherwise be read by nobody.
     */
    public static final class Columns {
        private final int[] kinds;

        private Columns(int[] kinds) {
            this.kinds = kinds;
        }

        /** Every row of {@code rs}, whose columns must be these; fails when it has more or fewer. */
        List<Row> copy(ResultSet rs) throws SQLException {
            int returned = rs.getMetaData().getColumnCount();
            if (returned != kinds.length) {
                throw new SQLException("the statement returned " + returned + " columns where its reader declares "
                        + kinds.length + ": the statement and the Row.Columns it is read with disagree");
            }
            return Row.copy(rs, kinds);
        }
    }

    public static Columns columns(ColumnType... types) {
        int[] kinds = new int[types.length];
        for (int i = 0; i < types.length; i++) {
            kinds[i] = types[i].reader;
        }
        return new Columns(kinds);
    }

    /** Every row of {@code rs}, column {@code i} read by {@code kinds[i]}. */
    private static List<Row> copy(ResultSet rs, int[] kinds) throws SQLException {
        List<Row> rows = new ArrayList<>();
        while (rs.next()) {
            Object[] values = new Object[kinds.length];
            for (int i = 0; i < kinds.length; i++) {
                values[i] = read(rs, i + 1, kinds[i]);
            }
            rows.add(new Row(values));
        }
        return rows;
    }

    private static final int AS_OBJECT = 0;
    /** Every integer type, as SQLite's INTEGER holds 64 bits whatever its driver reports. */
    private static final int AS_LONG = 1;
    private static final int AS_STRING = 2;
    /** An integer the statement never returns null for: no second call to ask whether it was. */
    private static final int AS_LONG_NOT_NULL = 3;

    private static int readerOf(int sqlType) {
        switch (sqlType) {
            case Types.BIGINT:
            case Types.INTEGER:
            case Types.SMALLINT:
                return AS_LONG;
            case Types.VARCHAR:
            case Types.CHAR:
            case Types.LONGVARCHAR:
            case Types.NVARCHAR:
                return AS_STRING;
            default:
                return AS_OBJECT;
        }
    }

    private static Object read(ResultSet rs, int column, int reader) throws SQLException {
        switch (reader) {
            case AS_LONG: {
                long v = rs.getLong(column);
                return rs.wasNull() ? null : v;
            }
            case AS_STRING:
                return rs.getString(column);
            case AS_LONG_NOT_NULL:
                return rs.getLong(column);
            default:
                return rs.getObject(column);
        }
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
