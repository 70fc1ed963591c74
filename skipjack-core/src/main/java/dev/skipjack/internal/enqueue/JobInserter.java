package dev.skipjack.internal.enqueue;

import dev.skipjack.internal.sql.Jdbc;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Inserts jobs with one multi-row statement per batch, on whatever connection it is given. */
public final class JobInserter {

    /** Rows per statement: large enough to amortise the round trip, small enough for the driver's limits. */
    static final int ROWS_PER_STATEMENT = 5_000;

    private final SqlStatements sql;

    public JobInserter(SqlStatements sql) {
        this.sql = sql;
    }

    /** Inserts the rows in order and returns their ids in the same order. */
    public List<Long> insert(Connection c, List<InsertRow> rows) throws SQLException {
        List<Long> ids = new ArrayList<>(rows.size());
        for (int from = 0; from < rows.size(); from += ROWS_PER_STATEMENT) {
            List<InsertRow> chunk = rows.subList(from, Math.min(rows.size(), from + ROWS_PER_STATEMENT));
            try (PreparedStatement ps = c.prepareStatement(sql.get("insert_jobs"))) {
                ps.setArray(1, Jdbc.textArray(c, chunk, InsertRow::queue));
                ps.setArray(2, Jdbc.textArray(c, chunk, InsertRow::kind));
                ps.setArray(3, Jdbc.textArray(c, chunk, InsertRow::argsJson));
                ps.setArray(4, c.createArrayOf("smallint", chunk.stream().map(r -> (short) r.priority()).toArray(Short[]::new)));
                ps.setArray(5, Jdbc.intArray(c, chunk, InsertRow::maxAttempts));
                ps.setArray(6, Jdbc.bigintArray(c, chunk, InsertRow::runAtMillis));
                ps.setArray(7, Jdbc.bigintArray(c, chunk, InsertRow::delayMillis));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
        }
        return ids;
    }
}
