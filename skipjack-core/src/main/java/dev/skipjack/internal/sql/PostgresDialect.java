package dev.skipjack.internal.sql;

import dev.skipjack.Backend;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL: every capability Skipjack uses; each strategy is one statement. All but consecutive
 * insert ids, a trait of one writer at a time: concurrent inserters' ids interleave here.
 */
public final class PostgresDialect implements Dialect {

    private static final Set<Capability> CAPABILITIES =
            Set.copyOf(EnumSet.complementOf(EnumSet.of(Capability.CONSECUTIVE_INSERT_IDS)));

    PostgresDialect() {
    }

    @Override
    public Backend backend() {
        return Backend.POSTGRESQL;
    }

    @Override
    public String id() {
        return "postgres";
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public char identifierQuote() {
        return '"';
    }

    // Unshifted, the text is exactly the plain function call: production statements are the same
    // text, and plan, as before the clock could move.
    @Override
    public String transactionTime(long offsetMicros) {
        return offsetMicros == 0 ? "now()" : "(now() + " + offsetMicros + " * interval '1 microsecond')";
    }

    @Override
    public String statementTime(long offsetMicros) {
        return offsetMicros == 0 ? "statement_timestamp()"
                : "(statement_timestamp() + " + offsetMicros + " * interval '1 microsecond')";
    }

    /**
     * clock_timestamp() in a subquery: now() and statement_timestamp() are taken when the server
     * starts on the statement's first message, before it waits for its table locks or is scheduled
     * again, and its snapshot comes after that; a claim stamped with either could read as started
     * before a job it waited for had committed its end (seen: a concurrency limit of 2 judged
     * exceeded from the stored times; a rate limit's window would free early by the same gap). The
     * uncorrelated subquery is an InitPlan, run once when the executor first needs it, after the
     * locks and the snapshot: every job of one claim still gets one attempted_at. (Its lease_until
     * is a second InitPlan, microseconds later: the lease plus that much.)
     */
    @Override
    public String evaluationTime(long offsetMicros) {
        return offsetMicros == 0 ? "(SELECT clock_timestamp())"
                : "(SELECT clock_timestamp() + " + offsetMicros + " * interval '1 microsecond')";
    }

    /** PostgreSQL runs a whole script as one command, in the migration's transaction. */
    @Override
    public List<String> scriptStatements(String script) {
        return List.of(script);
    }

    @Override
    public String defaultSchema(javax.sql.DataSource dataSource) {
        return "public";
    }

    @Override
    public void setList(PreparedStatement ps, int index, ListType type, Collection<?> values) throws SQLException {
        if (values == null) {
            ps.setNull(index, Types.ARRAY);
            return;
        }
        ps.setArray(index, ps.getConnection().createArrayOf(type.postgresName(), typedArray(type, values)));
    }

    /**
     * The list as an array of its element type: the driver sends a {@code Long[]}, {@code Integer[]}
     * or {@code Short[]} in PostgreSQL's binary array format, where an {@code Object[]} was written
     * out as text element by element and parsed back by the server (the completion statement's
     * three arrays cost a busy worker about a tenth of its CPU that way).
     *
     * <p>One loop per element type over a plain array: a single loop serving every type (and every
     * kind of collection) saw longs, ints and strings in turn, and C2 threw its compiled code away
     * and compiled it again each time the mix changed (17 deoptimizations and 7 compilations in a
     * fresh worker's first 200,000 jobs, JFR's jdk.Deoptimization). Values already of the element
     * type are passed as they are, not unboxed and boxed again.
     */
    private static Object[] typedArray(ListType type, Collection<?> values) {
        Object[] given = values.toArray();
        return switch (type) {
            case BIGINT -> longs(given);
            case INTEGER -> ints(given);
            case SMALLINT -> shorts(given);
            case TEXT -> texts(given);
        };
    }

    private static Long[] longs(Object[] given) {
        Long[] out = new Long[given.length];
        for (int i = 0; i < given.length; i++) {
            Object v = given[i];
            out[i] = v == null || v instanceof Long ? (Long) v : Long.valueOf(((Number) v).longValue());
        }
        return out;
    }

    private static Integer[] ints(Object[] given) {
        Integer[] out = new Integer[given.length];
        for (int i = 0; i < given.length; i++) {
            Object v = given[i];
            out[i] = v == null || v instanceof Integer ? (Integer) v : Integer.valueOf(((Number) v).intValue());
        }
        return out;
    }

    private static Short[] shorts(Object[] given) {
        Short[] out = new Short[given.length];
        for (int i = 0; i < given.length; i++) {
            Object v = given[i];
            out[i] = v == null || v instanceof Short ? (Short) v : Short.valueOf(((Number) v).shortValue());
        }
        return out;
    }

    private static String[] texts(Object[] given) {
        String[] out = new String[given.length];
        for (int i = 0; i < given.length; i++) {
            Object v = given[i];
            out[i] = v == null ? null : v.toString();
        }
        return out;
    }

    @Override
    public void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
        ps.setTimestamp(index, value == null ? null : Timestamp.from(value));
    }

    @Override
    public Instant getInstant(ResultSet rs, int column) throws SQLException {
        Timestamp ts = rs.getTimestamp(column);
        return ts == null ? null : ts.toInstant();
    }

    /** One statement: {@code UPDATE ... RETURNING} (or DELETE) with the choosing parameters first. */
    @Override
    public List<Row> updateReturning(Connection c, SqlStatements sql, String name, String apply, Params choose, Params set,
                                     Row.Columns columns) throws SQLException {
        return updateReturningInOneStatement(this, c, sql, name, choose, set, columns == null ? Row::all : columns::copy);
    }

    /** How a dialect copies the rows of a result: the getters its driver reads fastest. */
    @FunctionalInterface
    interface RowCopier {
        List<Row> copy(ResultSet rs) throws SQLException;
    }

    /**
     * Runs {@code name}, a change with RETURNING, binding {@code choose} then {@code set}, and
     * copies its rows with {@code rows}.
     */
    static List<Row> updateReturningInOneStatement(Dialect dialect, Connection c, SqlStatements sql, String name,
                                                   Params choose, Params set, RowCopier rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(name))) {
            set.bind(ps, choose.bind(ps, 1, dialect), dialect);
            try (ResultSet rs = ps.executeQuery()) {
                return rows.copy(rs);
            }
        }
    }

    /** {@code INSERT ... ON CONFLICT DO NOTHING RETURNING id}: a row when inserted, none for a duplicate. */
    @Override
    public Long insertUnlessDuplicate(Connection c, SqlStatements sql, String name, Params params) throws SQLException {
        return insertOnConflictDoNothing(this, c, sql, name, params);
    }

    /** Runs {@code name}, an insert with ON CONFLICT DO NOTHING RETURNING id. */
    static Long insertOnConflictDoNothing(Dialect dialect, Connection c, SqlStatements sql, String name, Params params)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(name))) {
            params.bind(ps, 1, dialect);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    /** {@code INSERT ... RETURNING id}. */
    @Override
    public long insertReturningId(Connection c, SqlStatements sql, String name, Params params) throws SQLException {
        return insertWithReturning(this, c, sql, name, params);
    }

    /** Runs {@code name}, an insert of one row ending {@code RETURNING id}. */
    static long insertWithReturning(Dialect dialect, Connection c, SqlStatements sql, String name, Params params)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(name))) {
            params.bind(ps, 1, dialect);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException(name + " inserted no row");
                }
                return rs.getLong(1);
            }
        }
    }

    /** PostgreSQL's default, READ COMMITTED, is what the short transactions want. */
    @Override
    public <T> T inShortTransaction(Connection c, Transactions.Work<T> work) throws SQLException {
        return Transactions.retryingOnConflict(this, c, work);
    }

    /** {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE} returns a row only when it took or kept the lease. */
    @Override
    public boolean acquireLeadership(Connection c, SqlStatements sql, String role, String holder, long termMillis)
            throws SQLException {
        return upsertLeadership(c, sql, role, holder, termMillis);
    }

    /** Runs leader_acquire.sql, an upsert that returns a row only when {@code holder} leads now. */
    static boolean upsertLeadership(Connection c, SqlStatements sql, String role, String holder, long termMillis)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("leader_acquire"))) {
            ps.setString(1, role);
            ps.setString(2, holder);
            ps.setLong(3, termMillis);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** A transaction-scoped advisory lock: released by the commit that ends the work. */
    @Override
    public <T> T underLock(Connection c, SqlStatements sql, String lockName, Transactions.Work<T> work)
            throws SQLException {
        try (PreparedStatement lock = c.prepareStatement(sql.get("migration_lock"))) {
            lock.setString(1, lockName);
            lock.execute();
        }
        return work.run(c);
    }

    /** 25P02, in_failed_sql_transaction: "current transaction is aborted, commands ignored until end of transaction block". */
    @Override
    public boolean isTransactionAborted(SQLException e) {
        return "25P02".equals(e.getSQLState());
    }

    /** Serialization failure (40001) and deadlock (40P01). */
    @Override
    public boolean isTransientConflict(SQLException e) {
        return "40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState());
    }

    /**
     * A server-side prepared statement the driver made on this connection is gone (26000
     * "prepared statement \"S_1\" does not exist"), or one of its name is already there (42P05),
     * or its parameters belong to another (08P01 "bind message supplies ..."): the driver's
     * statements are landing on other server sessions, as behind PgBouncer in transaction mode.
     */
    @Override
    public String misconfigurationHint(SQLException e) {
        String state = e.getSQLState();
        String message = String.valueOf(e.getMessage());
        boolean lostStatement = "26000".equals(state) || "42P05".equals(state)
                || ("08P01".equals(state) && message.contains("prepared statement"));
        if (!lostStatement) {
            return null;
        }
        return "the PostgreSQL driver's server-side prepared statements are lost between statements (\"prepared"
                + " statement ... does not exist\"), as happens behind PgBouncer in transaction mode."
                + " Add prepareThreshold=0 to the PostgreSQL JDBC URL (or run PgBouncer 1.21 or later with"
                + " max_prepared_statements set above 0), and call Skipjack.Builder.listenNotify(false): a"
                + " transaction-mode pooler cannot keep a session listening.";
    }

    static List<Row> rows(PreparedStatement ps, Row.Columns columns) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            return columns == null ? Row.all(rs) : columns.copy(rs);
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL";
    }
}
