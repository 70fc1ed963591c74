package dev.skipjack.internal.sql;

import dev.skipjack.Backend;
import dev.skipjack.DatabaseClock;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * One database backend: where its SQL lives ({@code dev/skipjack/sql/<id>/} for statements,
 * {@code dev/skipjack/migrations/<id>/} for the schema), what it can do ({@link Capability}), and
 * the few strategies that cannot be the same statement shape everywhere: binding a list, a change
 * that returns rows, the leadership upsert, the migration lock, time values, error codes.
 * Callers ask the dialect and never test which database it is; a new backend is a new
 * implementation plus its resource folders.
 */
public sealed interface Dialect permits PostgresDialect, MySqlFamilyDialect, SqliteDialect {

    /** PostgreSQL 12 and later. */
    Dialect POSTGRES = new PostgresDialect();
    /** MariaDB 10.6 and later. */
    Dialect MARIADB = new MySqlFamilyDialect(Backend.MARIADB);
    /** MySQL 8.0 and later. */
    Dialect MYSQL = new MySqlFamilyDialect(Backend.MYSQL);
    /** SQLite 3.35 and later. */
    Dialect SQLITE = new SqliteDialect();

    /** The dialect of a backend. */
    static Dialect of(Backend backend) {
        return switch (backend) {
            case POSTGRESQL -> POSTGRES;
            case MARIADB -> MARIADB;
            case MYSQL -> MYSQL;
            case SQLITE -> SQLITE;
        };
    }

    /** The database family this dialect speaks to. */
    Backend backend();

    /** The folder name of this dialect's SQL resources, e.g. {@code postgres}. */
    String id();

    /** The capabilities this backend has. */
    Set<Capability> capabilities();

    default boolean supports(Capability capability) {
        return capabilities().contains(capability);
    }

    /** The character that quotes identifiers in this dialect's SQL. */
    char identifierQuote();

    /** The SQL time expression a statement reads as "now" at its transaction's start, shifted by {@code offsetMicros}. */
    String transactionTime(long offsetMicros);

    /** The SQL time expression of the statement's own start, shifted by {@code offsetMicros}. */
    String statementTime(long offsetMicros);

    /**
     * The SQL time expression of the instant it is evaluated, shifted by {@code offsetMicros}: for
     * a claim's {@code attempted_at} or a cancel's {@code finished_at}, which must come after
     * everything its reads saw committed. Where a statement's start already does (its reads begin
     * with it), the statement's time.
     */
    default String evaluationTime(long offsetMicros) {
        return statementTime(offsetMicros);
    }

    /** This dialect's statements for one schema and table prefix, with "now" read from {@code clock}. */
    default SqlStatements statements(TableNames names, DatabaseClock clock) {
        return new SqlStatements(this, names.quotedWith(identifierQuote()), clock);
    }

    /** The resource path of a migration script of this dialect. */
    default String migrationResource(int version, String name) {
        return String.format("migrations/%s/V%03d__%s.sql", id(), version, name);
    }

    /** The statements of a migration script, to run one by one. */
    List<String> scriptStatements(String script);

    /**
     * The schema Skipjack's tables go to when the application names none (PostgreSQL:
     * {@code public}; the MySQL family: the database the DataSource's connections start in).
     */
    String defaultSchema(DataSource dataSource);

    /**
     * Checks, at build, that the DataSource's connections are set up as this backend needs and that
     * {@code schema} can hold Skipjack's tables; nothing to check by default.
     *
     * @throws dev.skipjack.InvalidConfigurationException naming the setting to change
     */
    default void checkConnections(DataSource dataSource, String schema) {
    }

    // ---------------------------------------------------------------- values

    /** Binds a list as one parameter (an array, or JSON text); {@code values} null binds NULL. */
    void setList(PreparedStatement ps, int index, ListType type, Collection<?> values) throws SQLException;

    /**
     * Binds lists of equal length paired by position (row {@code i} is element {@code i} of each
     * list) from {@code index} on; returns the next free index. By default one list per parameter
     * ({@link #setList}), which the statement pairs by position itself.
     */
    default int setRows(PreparedStatement ps, int index, List<ListType> types, List<? extends List<?>> columns)
            throws SQLException {
        int i = index;
        for (int c = 0; c < columns.size(); c++) {
            setList(ps, i++, types.get(c), columns.get(c));
        }
        return i;
    }

    /** Binds an instant, or NULL, as the dialect stores time. */
    void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException;

    /** Reads a time column, or null. */
    Instant getInstant(ResultSet rs, int column) throws SQLException;

    // ---------------------------------------------------------------- strategies

    /**
     * Runs the change {@code name} and returns the rows it changed, as PostgreSQL's
     * {@code UPDATE ... RETURNING} does. {@code choose} are the parameters that pick the rows,
     * {@code set} those that give new values; PostgreSQL statements take them in that order.
     * Where UPDATE cannot return rows, the dialect locks and reads the rows first
     * ({@code name}), then applies the change by id ({@code name_apply}), in one transaction: its
     * own when {@code c} is in auto-commit, else the caller's.
     */
    default List<Row> updateReturning(Connection c, SqlStatements sql, String name, Params choose, Params set)
            throws SQLException {
        return updateReturning(c, sql, name, name + "_apply", choose, set);
    }

    /** As {@link #updateReturning(Connection, SqlStatements, String, Params, Params)}, with the change applied by {@code apply}. */
    default List<Row> updateReturning(Connection c, SqlStatements sql, String name, String apply, Params choose,
                                      Params set) throws SQLException {
        return updateReturning(c, sql, name, apply, choose, set, null);
    }

    /**
     * As {@link #updateReturning(Connection, SqlStatements, String, String, Params, Params)}, its
     * rows read as {@code columns} declares them, or as the driver describes them when null.
     */
    List<Row> updateReturning(Connection c, SqlStatements sql, String name, String apply, Params choose, Params set,
                              Row.Columns columns) throws SQLException;

    /**
     * Runs {@code name}, an insert of one row that a unique index may refuse, and returns the new
     * row's id, or null when a row already holds the key. Only a uniqueness conflict gives null;
     * every other failure throws. Never leaves {@code c}'s transaction unusable: PostgreSQL and
     * SQLite skip the row ({@code ON CONFLICT DO NOTHING}); the MySQL family fails the statement
     * alone (error 1062), which rolls back only that statement.
     */
    Long insertUnlessDuplicate(Connection c, SqlStatements sql, String name, Params params) throws SQLException;

    /**
     * Runs {@code name}, an insert of one row, and returns the new row's id: {@code INSERT ...
     * RETURNING id} where every backend of this dialect has it, else the generated key (the
     * MySQL family's statements, shared with MySQL, have no RETURNING).
     */
    long insertReturningId(Connection c, SqlStatements sql, String name, Params params) throws SQLException;

    /**
     * Commits the transaction open on {@code c} and puts {@code c} back in auto-commit; when it
     * throws, the transaction did not commit. By default {@code commit()}, then
     * {@code setAutoCommit(true)}.
     */
    default void commitToAutoCommit(Connection c) throws SQLException {
        c.commit();
        c.setAutoCommit(true);
    }

    /**
     * Rolls back the transaction open on {@code c} and puts {@code c} back in auto-commit; when the
     * rollback throws, {@code c} stays out of auto-commit (switching it on would commit what was
     * not undone). By default {@code rollback()}, then {@code setAutoCommit(true)}.
     */
    default void rollbackToAutoCommit(Connection c) throws SQLException {
        c.rollback();
        c.setAutoCommit(true);
    }

    /**
     * Closes the physical connection under {@code c}, a pool's proxy included, so that the
     * transaction open on it ends without a commit, for a connection whose rollback failed. By
     * default {@code Connection.abort}, run in the calling thread.
     */
    default void abandon(Connection c) throws SQLException {
        c.abort(Runnable::run);
    }

    /**
     * Runs {@code work} in one short transaction of its own on {@code c}, which is in auto-commit:
     * at the isolation this dialect's short write transactions use (READ COMMITTED on the MySQL
     * family, whose default takes gap locks), rolled back and run again on a transient conflict
     * (a few times), committed when it returns; auto-commit and isolation restored either way.
     */
    <T> T inShortTransaction(Connection c, Transactions.Work<T> work) throws SQLException;

    /**
     * Takes or renews the lease of leadership {@code role} for {@code holder} when it is free,
     * expired or already the holder's; returns whether {@code holder} leads now.
     */
    boolean acquireLeadership(Connection c, SqlStatements sql, String role, String holder, long termMillis)
            throws SQLException;

    /**
     * Runs {@code work} on {@code c} (not in auto-commit) while holding the cluster-wide lock
     * {@code lockName}, so that any number of nodes can migrate at once; the work is committed
     * before another node can get the lock.
     */
    <T> T underLock(Connection c, SqlStatements sql, String lockName, Transactions.Work<T> work) throws SQLException;

    /**
     * Whether {@code e} is a conflict between transactions (deadlock, lock wait timeout,
     * serialization failure) that is safe to retry after rolling back.
     */
    boolean isTransientConflict(SQLException e);

    /**
     * Whether the database refused {@code e}'s statement for the data it carried (a value too long
     * or of the wrong type, a constraint or a trigger refusing a row), not for the connection or
     * the server: the same statement without that row would pass. By default SQLSTATE classes 22
     * (data exception) and 23 (integrity constraint violation).
     */
    default boolean isRefusedData(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("22") || state.startsWith("23"));
    }

    /**
     * Whether {@code e} says the transaction is aborted and takes no statement until rolled back
     * (or back to a savepoint): PostgreSQL's state after any failed statement. MySQL, MariaDB and
     * SQLite fail only the statement, so never.
     */
    default boolean isTransactionAborted(SQLException e) {
        return false;
    }

    /**
     * Most transactional jobs one transaction runs together (TransactionalRunner's groups): a crash
     * or a lost connection sends at most this many back. 32 by default, half of PostgreSQL's 64
     * cached subtransaction ids: a writing handler's savepoint and its reports' each take one, and
     * a transaction with more than 64 makes every other session's snapshot consult pg_subtrans
     * while it is open.
     */
    default int maxTransactionalGroup() {
        return 32;
    }

    /**
     * What to change in the setup when {@code e} is a symptom of a misconfiguration rather than a
     * failure of the statement (e.g. a connection pooler that drops prepared statements), or null.
     * {@link ConnectionHints} logs it once.
     */
    default String misconfigurationHint(SQLException e) {
        return null;
    }
}
