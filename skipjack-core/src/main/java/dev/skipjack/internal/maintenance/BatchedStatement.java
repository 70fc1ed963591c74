package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.Row;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * Runs a maintenance statement that takes a batch size as its only parameter and returns one row
 * per row it changed, again and again until a run changes less than a full batch. Small batches
 * keep each statement's locks and WAL short; repeating drains any backlog in one pass.
 */
final class BatchedStatement {

    /** Reads one returned row. */
    @FunctionalInterface
    interface RowReader {
        void read(Row row) throws SQLException;
    }

    private BatchedStatement() {
    }

    /** Returns the total rows changed; {@code eachRow} sees every returned row. */
    static int runUntilDrained(DataSource dataSource, SqlStatements sql, String statement, int batch, RowReader eachRow)
            throws SQLException {
        int total = 0;
        try (Connection c = Transactions.autoCommit(dataSource)) {
            int n;
            do {
                List<Row> rows = sql.dialect().updateReturning(c, sql, statement, Params.of().integer(batch), Params.of());
                for (Row row : rows) {
                    eachRow.read(row);
                }
                n = rows.size();
                total += n;
            } while (n == batch);
        }
        return total;
    }
}
