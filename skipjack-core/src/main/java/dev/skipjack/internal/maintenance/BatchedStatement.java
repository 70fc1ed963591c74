package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.sql.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
        void read(ResultSet row) throws SQLException;
    }

    private BatchedStatement() {
    }

    /** Returns the total rows changed; {@code eachRow} sees every returned row. */
    static int runUntilDrained(DataSource dataSource, String sql, int batch, RowReader eachRow)
            throws SQLException {
        int total = 0;
        try (Connection c = Transactions.autoCommit(dataSource)) {
            int n;
            do {
                n = 0;
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setInt(1, batch);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            eachRow.read(rs);
                            n++;
                        }
                    }
                }
                total += n;
            } while (n == batch);
        }
        return total;
    }
}
