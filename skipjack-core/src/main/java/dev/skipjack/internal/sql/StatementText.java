package dev.skipjack.internal.sql;

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
}
