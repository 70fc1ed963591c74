package dev.skipjack.internal.sql;

import dev.skipjack.Backend;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * SQLite 3.35+ (RETURNING), through xerial sqlite-jdbc, used by the threads of one process. No row
 * locks: the database has one write lock, and every write transaction takes it at its start
 * ({@code BEGIN IMMEDIATE}), so a change is one conditional {@code UPDATE ... RETURNING} whose
 * subquery picks the rows, as on PostgreSQL minus SKIP LOCKED. Statements bind PostgreSQL's
 * parameter order through numbered parameters ({@code ?4}). Times are INTEGER epoch microseconds.
 * The connections' settings (WAL, busy timeout, IMMEDIATE transactions, a database every connection
 * shares) are checked at build, not set behind the application's back: see {@link SqliteSettings}.
 */
public final class SqliteDialect implements Dialect {

    /** Fixed: asked on every job (a transactional kind's timeout), so built once. */
    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(Capability.UPDATE_RETURNING,
            Capability.INSERT_RETURNING, Capability.CONSECUTIVE_INSERT_IDS));

    /** SQLite's 'now' (millisecond resolution) as epoch microseconds, exact integer arithmetic. */
    private static final String NOW_MICROS = "(CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000)";

    SqliteDialect() {
    }

    @Override
    public Backend backend() {
        return Backend.SQLITE;
    }

    @Override
    public String id() {
        return "sqlite";
    }

    /** RETURNING on INSERT, UPDATE and DELETE, and one writer at a time (consecutive ids per insert). */
    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public char identifierQuote() {
        return '"';
    }

    /** SQLite's 'now' is fixed per statement, not per transaction: both are the statement's time. */
    @Override
    public String transactionTime(long offsetMicros) {
        return statementTime(offsetMicros);
    }

    @Override
    public String statementTime(long offsetMicros) {
        return offsetMicros == 0 ? NOW_MICROS : "(" + NOW_MICROS + " + " + offsetMicros + ")";
    }

    /** The JDBC driver runs one statement per call: a script runs statement by statement, in the migration's transaction. */
    @Override
    public List<String> scriptStatements(String script) {
        return MySqlFamilyDialect.splitScript(script);
    }

    /** The database file itself: SQLite names it {@code main}. */
    @Override
    public String defaultSchema(DataSource dataSource) {
        return "main";
    }

    @Override
    public void checkConnections(DataSource dataSource, String schema) {
        SqliteSettings.check(dataSource, schema);
    }

    @Override
    public void setList(PreparedStatement ps, int index, ListType type, Collection<?> values) throws SQLException {
        MySqlFamilyDialect.setJsonList(ps, index, type, values);
    }

    /** Epoch microseconds, as stored. */
    @Override
    public void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, Math.addExact(Math.multiplyExact(value.getEpochSecond(), 1_000_000L), value.getNano() / 1_000));
        }
    }

    @Override
    public Instant getInstant(ResultSet rs, int column) throws SQLException {
        long micros = rs.getLong(column);
        if (rs.wasNull()) {
            return null;
        }
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    /** {@code INSERT ... ON CONFLICT DO NOTHING RETURNING id}, as on PostgreSQL. */
    @Override
    public Long insertUnlessDuplicate(Connection c, SqlStatements sql, String name, Params params) throws SQLException {
        return PostgresDialect.insertOnConflictDoNothing(this, c, sql, name, params);
    }

    /**
     * One statement, as on PostgreSQL: numbered parameters put the choosing ones first. Its rows
     * are read as {@code columns} declares them, else by each value's stored type
     * ({@link Row#allByStoredType}): this driver's metadata is slower to ask than either.
     */
    @Override
    public List<Row> updateReturning(Connection c, SqlStatements sql, String name, String apply, Params choose, Params set,
                                     Row.Columns columns) throws SQLException {
        return PostgresDialect.updateReturningInOneStatement(this, c, sql, name, choose, set,
                columns == null ? Row::allByStoredType : columns::copy);
    }

    /** {@code INSERT ... RETURNING id}, as on PostgreSQL. */
    @Override
    public long insertReturningId(Connection c, SqlStatements sql, String name, Params params) throws SQLException {
        return PostgresDialect.insertWithReturning(this, c, sql, name, params);
    }

    /**
     * {@code setAutoCommit(true)}, which commits. sqlite-jdbc's {@code commit()} begins the next
     * transaction at once, and with IMMEDIATE transactions (checked at build) that takes the write
     * lock again, waiting behind every other writer, only for the {@code setAutoCommit(true)} after
     * it to hand the lock back. sqlite-jdbc counts the connection in auto-commit before its COMMIT
     * runs; in WAL mode (checked at build) no reader can hold a COMMIT back. A COMMIT that fails
     * (a full disk, an I/O error) may or may not have rolled the transaction back, SQLite's
     * documentation says, and asks for a ROLLBACK all the same: sent here, since the connection
     * already counts as in auto-commit and nobody else would end the transaction, which would keep
     * the database's only write lock.
     */
    @Override
    public void commitToAutoCommit(Connection c) throws SQLException {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            try (Statement rollback = c.createStatement()) {
                rollback.execute(ROLLBACK);
            } catch (SQLException alreadyEnded) {
                e.addSuppressed(alreadyEnded);
            }
            throw e;
        }
    }

    /**
     * {@code ROLLBACK} and a deferred {@code BEGIN} as statements, then {@link #commitToAutoCommit},
     * whose COMMIT ends the empty transaction. sqlite-jdbc's {@code rollback()} begins the next
     * transaction at once, which with IMMEDIATE transactions waits for the write lock behind every
     * other writer (and, past the busy timeout, fails and leaves the connection out of auto-commit)
     * only for the switch to auto-commit to hand it back; a deferred BEGIN takes no lock. When
     * SQLite already rolled the transaction back itself (a trigger's {@code RAISE(ROLLBACK)}, some
     * I/O errors), ROLLBACK fails with no transaction to end, and BEGIN, which runs only outside
     * a transaction, says so: that failure is dropped. When BEGIN fails too, the transaction is
     * still open: ROLLBACK's failure is thrown and the connection stays out of auto-commit. When
     * only BEGIN fails, SQLite is in auto-commit and sqlite-jdbc is not: switching it on records
     * auto-commit before its COMMIT fails for want of a transaction, and both agree again.
     */
    @Override
    public void rollbackToAutoCommit(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            SQLException rollbackFailure = null;
            try {
                s.execute(ROLLBACK);
            } catch (SQLException e) {
                rollbackFailure = e;
            }
            try {
                s.execute(BEGIN_DEFERRED);
            } catch (SQLException e) {
                if (rollbackFailure != null) {
                    rollbackFailure.addSuppressed(e);
                    throw rollbackFailure;
                }
                try {
                    c.setAutoCommit(true);
                } catch (SQLException noTransaction) {
                    // Expected: nothing to commit, and sqlite-jdbc counts auto-commit on already.
                }
                return;
            }
        }
        commitToAutoCommit(c);
    }

    /**
     * Closes sqlite-jdbc's connection itself: its {@code abort} does nothing. SQLite rolls back a
     * transaction left open by a connection that closes.
     */
    @Override
    public void abandon(Connection c) throws SQLException {
        c.unwrap(org.sqlite.SQLiteConnection.class).close();
    }

    /** Ends a transaction sqlite-jdbc counts as ended ({@code Connection.rollback()} would begin the next). */
    private static final String ROLLBACK = "ROLLBACK";

    /** A transaction that takes no lock until it reads or writes: ended at once by switching auto-commit on. */
    private static final String BEGIN_DEFERRED = "BEGIN DEFERRED";

    /**
     * 128: SQLite has no cache of subtransaction ids to overflow, and every transactional group
     * takes the one write lock, so the number of groups, not their size, is what the job threads
     * queue for (each hand-over of the lock goes through the busy handler's sleeps). Measured
     * (bench modes, 20,000 and 200,000 no-op jobs, concurrency 8, medians of 3): transactional
     * 42,800 / 44,100 jobs/s with groups of 32, 73,200 / 76,300 with 128. The group budget still
     * halves a group whose handlers take longer than it, so a slow handler does not hold the lock
     * for 128 jobs.
     */
    @Override
    public int maxTransactionalGroup() {
        return 128;
    }

    /** The transaction begins IMMEDIATE (checked at build): it holds the write lock from its start. */
    @Override
    public <T> T inShortTransaction(Connection c, Transactions.Work<T> work) throws SQLException {
        return Transactions.retryingOnConflict(this, c, work);
    }

    /** The same upsert as on PostgreSQL ({@code ON CONFLICT DO UPDATE ... WHERE ... RETURNING}). */
    @Override
    public boolean acquireLeadership(Connection c, SqlStatements sql, String role, String holder, long termMillis)
            throws SQLException {
        return PostgresDialect.upsertLeadership(c, sql, role, holder, termMillis);
    }

    /**
     * No advisory locks: the lock is the database's write lock, which the transaction {@code c} is
     * in took at its {@code BEGIN IMMEDIATE} (checked at build) and keeps until its commit, so two
     * migrating clients run one after the other and the second finds the work done.
     */
    @Override
    public <T> T underLock(Connection c, SqlStatements sql, String lockName, Transactions.Work<T> work)
            throws SQLException {
        return work.run(c);
    }

    /** SQLITE_BUSY and SQLITE_LOCKED, with their extended codes (e.g. BUSY_SNAPSHOT): another writer was in the way. */
    @Override
    public boolean isTransientConflict(SQLException e) {
        int primary = e.getErrorCode() & 0xff;
        return primary == 5 || primary == 6;
    }

    /**
     * SQLITE_TOOBIG, SQLITE_CONSTRAINT (a CHECK, NOT NULL or UNIQUE constraint, or a trigger's
     * {@code RAISE(ABORT)}) and SQLITE_MISMATCH, with their extended codes: sqlite-jdbc sets no
     * SQLSTATE, so the default's classes 22 and 23 never match.
     */
    @Override
    public boolean isRefusedData(SQLException e) {
        int primary = e.getErrorCode() & 0xff;
        return primary == 18 || primary == 19 || primary == 20;
    }

    @Override
    public String toString() {
        return "SQLite";
    }
}
