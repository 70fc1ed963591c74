package dev.skipjack.internal.sql;

import java.util.List;
import java.util.function.ToIntFunction;

/**
 * How much text one statement that Skipjack builds from many rows may carry. MySQL and MariaDB
 * refuse a statement over max_allowed_packet (16 MB by default on MariaDB, 64 MB on MySQL 8), and
 * PostgreSQL one over a gigabyte: thousands of rows of large args, outputs or errors pass either.
 * Two million characters are at most about 12 MB, three bytes a character with every one escaped
 * again inside a JSON array parameter; small rows never reach it.
 */
public final class StatementText {

    /** Characters of args, outputs or errors one multi-row statement carries at most (a single row's own may pass it). */
    public static final int MAX_CHARS = 2_000_000;

    private StatementText() {
    }

    /**
     * The end (exclusive) of the statement that starts at {@code rows[from]}: {@code maxRows} rows,
     * or fewer when their text ({@code chars} of each) passes {@code maxChars}; at least one row.
     */
    public static <T> int end(List<T> rows, int from, int maxRows, long maxChars, ToIntFunction<T> chars) {
        int end = Math.min(rows.size(), from + maxRows);
        long total = 0;
        for (int i = from; i < end; i++) {
            total += chars.applyAsInt(rows.get(i));
            if (total > maxChars && i > from) {
                return i;
            }
        }
        return end;
    }
}
