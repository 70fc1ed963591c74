package dev.skipjack.internal.sql;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.Backend;
import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.SkipjackException;

import java.io.IOException;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * MySQL 8.0+ and MariaDB 10.6+ (InnoDB). Both share one statement folder ({@code mariadb}),
 * written in the syntax both accept; where they differ (MariaDB has {@code INSERT ... RETURNING},
 * MySQL has not) the capability says so. What the PostgreSQL dialect does in one statement is done
 * here in one short READ COMMITTED transaction: lock and read the rows
 * ({@code SELECT ... FOR UPDATE SKIP LOCKED}), then change them by primary key. Times are
 * {@code DATETIME(6)} in UTC, written with {@code UTC_TIMESTAMP(6)}, which ignores the session's
 * time zone.
 */
public final class MySqlFamilyDialect implements Dialect {

    /** ER_DUP_ENTRY. */
    private static final int DUPLICATE_KEY = 1062;
    /** Deadlock, lock wait timeout, MariaDB snapshot conflict, user-lock deadlock, NOWAIT: roll back and retry. */
    private static final Set<Integer> TRANSIENT_CONFLICTS = Set.of(1213, 1205, 1020, 3058, 3572);
    /** A migration script's statements end with ';' at the end of a line; comments are whole lines. */
    private static final Pattern STATEMENT_END = Pattern.compile(";\\s*$", Pattern.MULTILINE);
    /** How long one GET_LOCK call waits before asking again, in seconds. */
    private static final int LOCK_WAIT_SECONDS = 10;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Backend backend;
    private final Set<Capability> capabilities;

    MySqlFamilyDialect(Backend backend) {
        this.backend = backend;
        EnumSet<Capability> caps = EnumSet.of(Capability.SKIP_LOCKED, Capability.CONCURRENT_WRITERS);
        if (backend == Backend.MARIADB) {
            caps.add(Capability.INSERT_RETURNING); // MariaDB 10.5+; MySQL 8 has no RETURNING at all
        }
        this.capabilities = Set.copyOf(caps);
    }

    @Override
    public Backend backend() {
        return backend;
    }

    /** One folder for both: every statement in it runs on MySQL 8 and MariaDB 10.6. */
    @Override
    public String id() {
        return "mariadb";
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public char identifierQuote() {
        return '`';
    }

    // The statement's start on both: MySQL has no "transaction start" time function. Every
    // statement that must see one time across a transaction reads it once.
    @Override
    public String transactionTime(long offsetMicros) {
        return statementTime(offsetMicros);
    }

    @Override
    public String statementTime(long offsetMicros) {
        return offsetMicros == 0 ? "UTC_TIMESTAMP(6)" : "(UTC_TIMESTAMP(6) + INTERVAL " + offsetMicros + " MICROSECOND)";
    }

    /** Without multi-statement queries a script runs statement by statement (and DDL commits at once). */
    @Override
    public List<String> scriptStatements(String script) {
        return splitScript(script);
    }

    /**
     * The statements of a migration script (each ends with ';' at the end of a line), without
     * whole-line comments; SQLite's scripts are split the same way.
     */
    static List<String> splitScript(String script) {
        List<String> out = new ArrayList<>();
        for (String part : STATEMENT_END.split(script)) {
            String statement = part.lines().filter(l -> !l.trim().startsWith("--")).reduce("", (a, b) -> a + b + "\n").trim();
            if (!statement.isEmpty()) {
                out.add(statement);
            }
        }
        return out;
    }

    /** The connection's current database: on this family a schema is a database. */
    @Override
    public String defaultSchema(javax.sql.DataSource dataSource) {
        String catalog;
        try (Connection c = dataSource.getConnection()) {
            catalog = c.getCatalog();
        } catch (SQLException e) {
            throw new SkipjackException("could not read the connection's database for the default schema: "
                    + e.getMessage(), e);
        }
        if (catalog == null || catalog.isBlank()) {
            throw new InvalidConfigurationException("schema", "the DataSource's connections have no current database:"
                    + " name one in the JDBC URL (jdbc:mariadb://host/db) or set Builder.schema(name)");
        }
        return catalog;
    }

    @Override
    public void setList(PreparedStatement ps, int index, ListType type, Collection<?> values) throws SQLException {
        setJsonList(ps, index, type, values);
    }

    /** Binds a list as JSON array text (SQLite reads it with json_each), or NULL. */
    static void setJsonList(PreparedStatement ps, int index, ListType type, Collection<?> values) throws SQLException {
        if (values == null) {
            ps.setNull(index, Types.VARCHAR);
            return;
        }
        try {
            ps.setString(index, JSON.writeValueAsString(values));
        } catch (JsonProcessingException e) {
            throw new SQLException("cannot write a " + type + " list as JSON: " + e.getMessage(), e);
        }
    }

    /**
     * One parameter: a JSON array of rows, each an array of the lists' elements at one position
     * ({@code [[id, attempt], ...]}), read by one {@code JSON_TABLE} with a path per column
     * ({@code '$[0]'}, {@code '$[1]'}). Separate lists would have to be joined on their
     * {@code FOR ORDINALITY} columns, which have no index: a nested loop over both, quadratic in the
     * batch (measured on MariaDB 10.11: 0.6 s for a 2,000-job completion, 28 ms as rows).
     */
    @Override
    public int setRows(PreparedStatement ps, int index, List<ListType> types, List<? extends List<?>> columns)
            throws SQLException {
        int size = columns.isEmpty() ? 0 : columns.get(0).size();
        for (List<?> column : columns) {
            if (column == null || column.size() != size) {
                throw new IllegalArgumentException("rows need lists of one length, got "
                        + columns.stream().map(l -> l == null ? "null" : String.valueOf(l.size())).toList());
            }
        }
        StringWriter out = new StringWriter(size * 8 * Math.max(1, columns.size()) + 2);
        try (JsonGenerator json = JSON.getFactory().createGenerator(out)) {
            json.writeStartArray();
            for (int r = 0; r < size; r++) {
                json.writeStartArray();
                for (List<?> column : columns) {
                    json.writeObject(column.get(r));
                }
                json.writeEndArray();
            }
            json.writeEndArray();
        } catch (IOException e) {
            throw new SQLException("cannot write rows as JSON: " + e.getMessage(), e);
        }
        ps.setString(index, out.toString());
        return index + 1;
    }

    @Override
    public void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.TIMESTAMP);
        } else {
            ps.setObject(index, LocalDateTime.ofInstant(value, ZoneOffset.UTC));
        }
    }

    @Override
    public Instant getInstant(ResultSet rs, int column) throws SQLException {
        LocalDateTime t = rs.getObject(column, LocalDateTime.class);
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }

    /**
     * A plain insert whose generated key is the id; error 1062 (duplicate key) means a row holds
     * the key. MySQL has no INSERT ... RETURNING, and a failed statement is rolled back alone here,
     * so catching the error leaves the caller's transaction as it was.
     */
    @Override
    public Long insertUnlessDuplicate(Connection c, SqlStatements sql, String name, Params params) throws SQLException {
        try {
            return insertReturningId(c, sql, name, params);
        } catch (SQLException e) {
            if (e.getErrorCode() == DUPLICATE_KEY) {
                return null;
            }
            throw e;
        }
    }

    /** The generated key: MySQL has no INSERT ... RETURNING, so the shared statements have none. */
    @Override
    public long insertReturningId(Connection c, SqlStatements sql, String name, Params params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(name), Statement.RETURN_GENERATED_KEYS)) {
            params.bind(ps, 1, this);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException(name + " inserted a row but reported no generated key");
                }
                return keys.getLong(1);
            }
        }
    }

    /** READ COMMITTED: no gap locks, so enqueues and claims never wait on these transactions' scans. */
    @Override
    public <T> T inShortTransaction(Connection c, Transactions.Work<T> work) throws SQLException {
        int isolation = c.getTransactionIsolation();
        readCommitted(c);
        T result;
        try {
            result = Transactions.retryingOnConflict(this, c, work);
        } catch (SQLException | RuntimeException | Error e) {
            // The work's failure stays the one thrown, also from a connection abandoned after a
            // rollback that failed, which refuses everything.
            try {
                c.setTransactionIsolation(isolation);
            } catch (SQLException | RuntimeException restore) {
                e.addSuppressed(restore);
            }
            throw e;
        }
        c.setTransactionIsolation(isolation);
        return result;
    }

    /**
     * No UPDATE ... RETURNING: {@code name} locks and reads the rows (the values they will have
     * after the change), {@code apply} changes them by primary key. In its own READ COMMITTED
     * transaction when {@code c} is in auto-commit: no gap locks, so enqueues never wait on a
     * claimer, and a deadlock or lock wait timeout is rolled back here and retried.
     */
    @Override
    public List<Row> updateReturning(Connection c, SqlStatements sql, String name, String apply, Params choose, Params set,
                                     Row.Columns columns) throws SQLException {
        if (!c.getAutoCommit()) {
            readCommitted(c);
            return lockReadApply(c, sql, name, apply, choose, set, columns);
        }
        // A short transaction of its own: rolled back and retried on a conflict (1205 rolls back
        // only the statement), and never committed after a rollback that failed.
        return inShortTransaction(c, tx -> lockReadApply(tx, sql, name, apply, choose, set, columns));
    }

    private List<Row> lockReadApply(Connection c, SqlStatements sql, String name, String apply, Params choose, Params set,
                                    Row.Columns columns) throws SQLException {
        List<Row> rows;
        try (PreparedStatement ps = c.prepareStatement(sql.get(name))) {
            choose.bind(ps, 1, this);
            rows = PostgresDialect.rows(ps, columns);
        }
        if (rows.isEmpty()) {
            return rows;
        }
        List<Long> ids = new ArrayList<>(rows.size());
        for (Row r : rows) {
            ids.add(r.getLong(1));
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get(apply))) {
            setList(ps, 1, ListType.BIGINT, ids);
            set.bind(ps, 2, this);
            ps.executeUpdate();
        }
        return rows;
    }

    /**
     * Renews the lease if ours or expired ({@code leader_take}), else creates the row if there is
     * none ({@code leader_insert}, INSERT IGNORE: a concurrent creator wins, the other gets 0).
     * Either count works whether the driver reports found or changed rows: the UPDATE always
     * moves lease_until.
     */
    @Override
    public boolean acquireLeadership(Connection c, SqlStatements sql, String role, String holder, long termMillis)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("leader_take"))) {
            ps.setString(1, holder);
            ps.setLong(2, termMillis);
            ps.setString(3, role);
            ps.setString(4, holder);
            if (ps.executeUpdate() > 0) {
                return true;
            }
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get("leader_insert"))) {
            ps.setString(1, role);
            ps.setString(2, holder);
            ps.setLong(3, termMillis);
            return ps.executeUpdate() > 0;
        }
    }

    /**
     * {@code GET_LOCK}: bound to the session, not the transaction, so it is released in
     * {@code finally} after the work commits (DDL commits by itself on this family anyway).
     */
    @Override
    public <T> T underLock(Connection c, SqlStatements sql, String lockName, Transactions.Work<T> work)
            throws SQLException {
        long deadline = System.nanoTime() + 10L * 60 * 1_000_000_000L;
        while (!lockOnce(c, sql, lockName)) {
            if (System.nanoTime() > deadline) {
                throw new SkipjackException("could not get the migration lock in 10 minutes: another node is migrating");
            }
        }
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } finally {
            try (PreparedStatement ps = c.prepareStatement(sql.get("migration_unlock"))) {
                ps.setString(1, lockName);
                ps.execute();
            }
        }
    }

    private boolean lockOnce(Connection c, SqlStatements sql, String lockName) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("migration_lock"))) {
            ps.setString(1, lockName);
            ps.setInt(2, LOCK_WAIT_SECONDS);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    /**
     * 128: InnoDB has no cache of subtransaction ids to overflow (a savepoint is a mark in the
     * transaction's undo log), and its transactional claim is the costly statement of a group:
     * while seven other groups hold their rows, the claim's locking read steps over their locked
     * and delete-marked index records. Measured on MariaDB 10.11 (bench modes, 20,000 no-op jobs,
     * concurrency 8, medians of 3): transactional / lease 0.29 with groups of 8, 0.45 with 32,
     * 0.54 with 64, 0.71 with 128; a handler that inserts a row 0.76-0.78 × the same in lease mode
     * at 32 to 128. The group budget still halves a group whose handlers take longer than it.
     * MySQL 8 shares the reasoning (same InnoDB) but was not measured here.
     */
    @Override
    public int maxTransactionalGroup() {
        return 128;
    }

    /** By vendor code: Connector/J reports both 1205 and 1213 as SQLState 40001. */
    @Override
    public boolean isTransientConflict(SQLException e) {
        return TRANSIENT_CONFLICTS.contains(e.getErrorCode());
    }

    private static void readCommitted(Connection c) throws SQLException {
        if (c.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
    }

    @Override
    public String toString() {
        return backend.productName();
    }
}
