package dev.skipjack.cli.demo;

import dev.skipjack.cli.CliException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/** The demo's direct reads of Skipjack's jobs table, for what the client API does not report. */
public final class DemoJobsTable {

    /** How the jobs of one kind ended. Retries are attempts after the first. */
    public record KindStats(String kind, long jobs, long completed, long discarded, long cancelled, long retries) {
    }

    /** Charges whose card declines every attempt, against those that ended discarded after all their attempts. */
    public record DeclinedCards(long declined, long discardedAfterAllAttempts) {
    }

    private final DataSource dataSource;
    private final String schema;
    private final String name;

    /** {@code qualifiedName} is the client's {@link dev.skipjack.Skipjack#jobsTable()}. */
    public DemoJobsTable(DataSource dataSource, String schema, String qualifiedName) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.name = qualifiedName;
    }

    /** The quoted, schema-qualified table name. */
    public String name() {
        return name;
    }

    /**
     * Deletes the jobs of an earlier demo run and returns how many there were. Refuses when the
     * table holds jobs of any other kind: then the schema is not the demo's, and its jobs are
     * someone's real work.
     */
    public long emptyForNewRun(Set<String> demoKinds) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            long jobs;
            long foreignJobs;
            // One placeholder per kind rather than an array parameter: SQLite's driver has no arrays.
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*), " + countWhere("kind NOT IN ("
                    + String.join(", ", java.util.Collections.nCopies(demoKinds.size(), "?")) + ")") + " FROM " + name)) {
                int i = 1;
                for (String kind : demoKinds) {
                    ps.setString(i++, kind);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    jobs = rs.getLong(1);
                    foreignJobs = rs.getLong(2);
                }
            }
            if (foreignJobs > 0) {
                throw new CliException("schema " + schema + " holds " + foreignJobs + " job(s) of kinds the demo does"
                        + " not create; the demo empties its jobs table, so give it a schema of its own with --schema");
            }
            if (jobs > 0) {
                try (Statement s = c.createStatement()) {
                    truncateJobs(c, s);
                }
            }
            return jobs;
        }
    }

    /**
     * Deletes the workflows (F-14) and dependency edges whose jobs are gone, and returns how many
     * workflows there were. Call after {@link #emptyForNewRun}: emptying the jobs table leaves an
     * earlier run's workflow rows behind, and on MariaDB and MySQL {@code TRUNCATE} restarts the job
     * ids, so a new workflow's edges would collide with the old ones.
     */
    public long removeOrphanedWorkflows() throws SQLException {
        // The sibling tables of the jobs table: same schema, same prefix, same quotes.
        String stem = name.substring(0, name.length() - "jobs".length() - 1);
        char quote = name.charAt(name.length() - 1);
        String workflows = stem + "workflows" + quote;
        String dependencies = stem + "job_dependencies" + quote;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM " + dependencies + " WHERE NOT EXISTS (SELECT 1 FROM " + name
                    + " j WHERE j.id = " + dependencies + ".child_id)");
            return s.executeUpdate("DELETE FROM " + workflows + " WHERE NOT EXISTS (SELECT 1 FROM " + name
                    + " j WHERE j.workflow_id = " + workflows + ".id)");
        }
    }

    public List<KindStats> statsByKind() throws SQLException {
        List<KindStats> stats = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT kind, count(*),"
                     + " " + countWhere("state = 'completed'") + ","
                     + " " + countWhere("state = 'discarded'") + ","
                     + " " + countWhere("state = 'cancelled'") + ","
                     + " coalesce(sum(CASE WHEN attempt > 1 THEN attempt - 1 ELSE 0 END), 0)"
                     + " FROM " + name + " GROUP BY kind ORDER BY kind")) {
            while (rs.next()) {
                stats.add(new KindStats(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5),
                        rs.getLong(6)));
            }
        }
        return stats;
    }

    public DeclinedCards declinedCards() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*),"
                     + " " + countWhere("state = 'discarded' AND attempt = max_attempts")
                     + " FROM " + name + " WHERE kind = '" + DemoWorkload.CHARGE_CARD.name() + "'"
                     + " AND " + alwaysDeclined(c))) {
            rs.next();
            return new DeclinedCards(rs.getLong(1), rs.getLong(2));
        }
    }

    /**
     * Rows matching {@code condition}, as every backend writes it: MariaDB and MySQL have no
     * {@code count(*) FILTER (WHERE ...)}. Zero (not NULL) on an empty table.
     */
    private static String countWhere(String condition) {
        return "coalesce(sum(CASE WHEN " + condition + " THEN 1 ELSE 0 END), 0)";
    }

    /** The charge's {@code alwaysDeclined} argument is true, in the JSON functions of the connection's database. */
    private static String alwaysDeclined(Connection c) throws SQLException {
        String url = c.getMetaData().getURL();
        if (url.startsWith("jdbc:sqlite:")) {
            return "json_extract(args, '$.alwaysDeclined') = 1";
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            // JSON_VALUE gives a JSON true as '1' on MariaDB and as 'true' on MySQL.
            return "json_value(args, '$.alwaysDeclined') IN ('1', 'true')";
        }
        return "(args ->> 'alwaysDeclined')::boolean";
    }

    /**
     * Empties the jobs table and the job reports that reference it (V011's foreign keys). SQLite
     * has no TRUNCATE (its delete trigger takes the reports); PostgreSQL truncates the referencing
     * tables with CASCADE; the MySQL family refuses TRUNCATE of a referenced table at all, so the
     * reports' tables are truncated too with the checks off for this session, and back on after.
     */
    private void truncateJobs(Connection c, Statement s) throws SQLException {
        if (sqlite(c)) {
            s.execute("DELETE FROM " + name);
            return;
        }
        if (c.getMetaData().getURL().startsWith("jdbc:postgresql:")) {
            s.execute("TRUNCATE " + name + " CASCADE");
            return;
        }
        String schemaPart = name.substring(0, name.lastIndexOf('.') + 1);
        String table = name.substring(name.lastIndexOf('.') + 1);
        String prefix = table.substring(1, table.length() - "jobs`".length());
        s.execute("SET FOREIGN_KEY_CHECKS = 0");
        try {
            s.execute("TRUNCATE " + schemaPart + "`" + prefix + "job_logs`");
            s.execute("TRUNCATE " + schemaPart + "`" + prefix + "job_progress`");
            s.execute("TRUNCATE " + name);
        } finally {
            s.execute("SET FOREIGN_KEY_CHECKS = 1");
        }
    }

    /** SQLite has no TRUNCATE: the few statements that differ ask. */
    private static boolean sqlite(Connection c) throws SQLException {
        return c.getMetaData().getURL().startsWith("jdbc:sqlite:");
    }
}
