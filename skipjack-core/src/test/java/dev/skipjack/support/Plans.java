package dev.skipjack.support;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Query plans of Skipjack's statements, for the tests that hold the statements to their indexes. */
public final class Plans {

    private Plans() {
    }

    /**
     * The plan of {@code sql} as a server-side prepared statement forced to its generic plan: what
     * a statement the driver has prepared ends up with after a few executions. (EXPLAIN with bound
     * parameters plans with their values, like a custom plan, and can use an index the generic
     * plan cannot.)
     *
     * @param parameterTypes the statement's parameter types, e.g. {@code "bigint[], int[]"}
     * @param arguments      SQL literals for them, e.g. {@code "'{1,2}', '{1,1}'"}
     */
    public static String generic(DataSource dataSource, String sql, String parameterTypes, String arguments)
            throws SQLException {
        String body = sql.replaceAll("(?m)^--.*$", "");
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : body.toCharArray()) {
            if (ch == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(ch);
            }
        }
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                s.execute("SET LOCAL plan_cache_mode = force_generic_plan");
                s.execute("PREPARE plan_under_test (" + parameterTypes + ") AS " + numbered);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = s.executeQuery("EXPLAIN EXECUTE plan_under_test (" + arguments + ")")) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                return plan.toString();
            } finally {
                c.rollback();
                s.execute("DEALLOCATE ALL");
            }
        }
    }
}
