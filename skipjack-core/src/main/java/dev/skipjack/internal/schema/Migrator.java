package dev.skipjack.internal.schema;

import dev.skipjack.MigrationScript;
import dev.skipjack.SkipjackException;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Applies Skipjack's numbered migrations in one transaction under the dialect's migration lock
 * (PostgreSQL: a transaction-scoped advisory lock; the MySQL family: GET_LOCK), so any number of nodes can migrate at once: the first does the work, the others wait for
 * it and then find nothing left to do.
 */
public final class Migrator {

    private static final Logger log = LoggerFactory.getLogger(Migrator.class);

    /** Every migration, in order. A migration is never edited once released; add a new one. */
    static final List<Migration> MIGRATIONS = List.of(
            new Migration(1, "jobs"),
            new Migration(3, "queues"),
            new Migration(4, "leader"),
            new Migration(5, "retention"),
            new Migration(6, "unique"),
            new Migration(7, "cron"),
            new Migration(9, "workflows"),
            new Migration(10, "nodes"),
            new Migration(11, "job_reports"),
            // After V009, which rebuilds SQLite's jobs table with the columns it knew (V008 is unused).
            new Migration(12, "concurrency"),
            new Migration(13, "queue_name_check"),
            new Migration(14, "trace_context"),
            new Migration(15, "stop_requested"),
            new Migration(16, "waiting_keys"));

    record Migration(int version, String name) {
    }

    private static final java.util.regex.Pattern MIGRATION_NAME = java.util.regex.Pattern.compile("[a-z][a-z0-9_]*");

    private final SqlStatements sql;
    private final TableNames names;

    public Migrator(SqlStatements sql) {
        this.sql = sql;
        this.names = sql.names();
    }

    /** Brings the schema up to date; returns the versions applied by this call. */
    public List<Integer> migrate(DataSource dataSource) {
        String lockName = "skipjack-migrate:" + names.schema() + ":" + names.prefix();
        try {
            return Transactions.inTransaction(dataSource, sql.dialect(), c -> sql.dialect().underLock(c, sql, lockName, this::migrate));
        } catch (SQLException e) {
            throw new SkipjackException("migration of schema " + names.schema() + " failed: " + e.getMessage(), e);
        }
    }

    private List<Integer> migrate(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql.get("create_schema"));
            s.execute(sql.get("create_migrations_table"));
        }
        Set<Integer> done = new HashSet<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql.get("applied_migrations"))) {
            while (rs.next()) {
                done.add(rs.getInt(1));
            }
        }
        List<Integer> applied = new java.util.ArrayList<>();
        for (Migration m : MIGRATIONS) {
            if (done.contains(m.version())) {
                continue;
            }
            // On the MySQL family each DDL statement commits by itself: a migration is not atomic
            // there, which is why its scripts create only what does not exist yet.
            try (Statement s = c.createStatement()) {
                for (String statement : sql.dialect().scriptStatements(sql.migration(m.version(), m.name()))) {
                    s.execute(statement);
                }
            }
            try (PreparedStatement record = c.prepareStatement(sql.get("record_migration"))) {
                record.setInt(1, m.version());
                record.setString(2, m.name());
                record.executeUpdate();
            }
            log.info("applied Skipjack migration V{} ({}) to schema {}", m.version(), m.name(), names.schema());
            applied.add(m.version());
        }
        return applied;
    }

    /**
     * The schemas of {@code dataSource}'s database that hold a jobs table with {@code sql}'s table
     * prefix, by name: where Skipjack's tables are, for a client whose own schema has none.
     */
    public static List<String> schemasWithJobsTable(DataSource dataSource, SqlStatements sql) throws SQLException {
        List<String> schemas = new java.util.ArrayList<>();
        try (Connection c = Transactions.autoCommit(dataSource);
             PreparedStatement ps = c.prepareStatement(sql.get("schemas_with_jobs_table"))) {
            ps.setString(1, sql.names().prefix() + "jobs");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    schemas.add(rs.getString(1));
                }
            }
        }
        return schemas;
    }

    /** Every migration rendered as one plain SQL script, for psql or the mysql client. */
    public String exportSql() {
        StringBuilder out = new StringBuilder();
        for (MigrationScript script : exportScripts()) {
            out.append(script.sql());
        }
        return out.toString();
    }

    /**
     * Every migration as its own script, for Flyway or Liquibase users who apply them themselves:
     * the migration's statements, preceded by what creates the schema (first script only) and
     * Skipjack's migrations table, and followed by the row {@link #migrate} would record, so that
     * {@code migrate()} later finds these versions applied instead of applying them again.
     */
    public List<MigrationScript> exportScripts() {
        List<MigrationScript> scripts = new java.util.ArrayList<>();
        for (Migration m : MIGRATIONS) {
            List<String> statements = new java.util.ArrayList<>();
            if (scripts.isEmpty()) {
                statements.add(sql.get("create_schema"));
            }
            statements.add(sql.get("create_migrations_table"));
            statements.addAll(sql.dialect().scriptStatements(sql.migration(m.version(), m.name())));
            statements.add(recordStatement(m));
            scripts.add(new MigrationScript(m.version(), m.name(), statements));
        }
        return scripts;
    }

    /**
     * The {@code record_migration} statement with its two parameters written in: an exported script
     * has no one to bind them. Both come from {@link #MIGRATIONS}, never from input, and are
     * checked here so that stays true.
     */
    private String recordStatement(Migration m) {
        if (!MIGRATION_NAME.matcher(m.name()).matches()) {
            throw new IllegalStateException("migration name is not a plain identifier: " + m.name());
        }
        String statement = sql.get("record_migration");
        int first = statement.indexOf('?');
        int second = statement.indexOf('?', first + 1);
        if (first < 0 || second < 0 || statement.indexOf('?', second + 1) >= 0) {
            throw new IllegalStateException("record_migration must take exactly (version, name)");
        }
        return statement.substring(0, first) + m.version() + statement.substring(first + 1, second)
                + "'" + m.name() + "'" + statement.substring(second + 1);
    }
}
