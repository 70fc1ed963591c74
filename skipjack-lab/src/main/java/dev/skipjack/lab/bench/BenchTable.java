package dev.skipjack.lab.bench;

import dev.skipjack.Backend;
import dev.skipjack.Skipjack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The jobs table a benchmark runs on, and the benchmark's own SQL (resource files next to this
 * class, one statement each) rendered for it: the backend's own file ({@code postgres/},
 * {@code mariadb/} for MariaDB and MySQL, {@code sqlite/}) where there is one, else the shared one.
 */
public final class BenchTable {

    /** How far ahead rows scheduled by the benchmark itself (depth's filler) are due, at least. */
    public static final Duration FAR_FUTURE = Duration.ofDays(365);

    private final DataSource dataSource;
    private final String jobsTable;
    private final Backend backend;
    /** The kind {@link #empty()} and {@link #unfinished()} are limited to; null for the whole table. */
    private final String kind;

    /** The jobs table of {@code owner}, a client on {@code dataSource}. */
    public BenchTable(DataSource dataSource, Skipjack owner) {
        this(dataSource, owner.jobsTable(), owner.backend());
    }

    /** {@code jobsTable} is {@link Skipjack#jobsTable()}: validated and quoted by Skipjack. */
    public BenchTable(DataSource dataSource, String jobsTable, Backend backend) {
        this(dataSource, jobsTable, backend, null);
    }

    private BenchTable(DataSource dataSource, String jobsTable, Backend backend, String kind) {
        this.dataSource = dataSource;
        this.jobsTable = jobsTable;
        this.backend = backend;
        this.kind = kind;
    }

    /**
     * The same table with {@link #empty()} and {@link #unfinished()} limited to one kind's rows, so
     * rows of other kinds (depth's millions of filler rows) survive between runs.
     */
    public BenchTable onlyKind(String kind) {
        return new BenchTable(dataSource, jobsTable, backend, kind);
    }

    /** The quoted, schema-qualified jobs table. */
    public String jobsTable() {
        return jobsTable;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The database the table is on. */
    public Backend backend() {
        return backend;
    }

    /** The directory of this backend's own statements; MySQL shares MariaDB's. */
    private String dialectDirectory() {
        return switch (backend) {
            case POSTGRESQL -> "postgres";
            case MARIADB, MYSQL -> "mariadb";
            case SQLITE -> "sqlite";
        };
    }

    /**
     * The statement in {@code <dialect>/<name>.sql}, or else the shared {@code <name>.sql}, for this
     * table: {@code {{jobs}}} is the quoted table, {@code {{schema}}} its quoted schema,
     * {@code {{prefix}}} its name's prefix (index names, the benchmark's own tables).
     */
    public String sql(String name) {
        String own = dialectDirectory() + "/" + name + ".sql";
        String shared = name + ".sql";
        try (InputStream dialect = BenchTable.class.getResourceAsStream(own);
             InputStream in = dialect != null ? dialect : BenchTable.class.getResourceAsStream(shared)) {
            if (in == null) {
                throw new IllegalStateException("missing benchmark SQL " + own + " or " + shared);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("{{jobs}}", jobsTable)
                    .replace("{{schema}}", jobsTable.substring(0, jobsTable.lastIndexOf('.')))
                    .replace("{{prefix}}", tablePrefix());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The prefix of the quoted table name's last part, e.g. {@code skipjack_} of {@code `db`.`skipjack_jobs`}. */
    private String tablePrefix() {
        String table = jobsTable.substring(jobsTable.lastIndexOf('.') + 1).replace("`", "").replace("\"", "");
        return table.substring(0, table.length() - "jobs".length());
    }

    /** Empties the table (or deletes this kind's rows) so a run starts from an empty queue. */
    public void empty() throws SQLException {
        if (kind == null) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                if (!dialectDirectory().equals("mariadb")) {
                    s.execute(sql("empty_jobs")); // PostgreSQL: with CASCADE, for the job reports' tables
                    return;
                }
                // The MySQL family refuses TRUNCATE of a table other tables reference (V011's job
                // reports): truncate those too, with the checks off for this session only.
                String schemaPart = jobsTable.substring(0, jobsTable.lastIndexOf('.') + 1);
                s.execute("SET FOREIGN_KEY_CHECKS = 0");
                try {
                    s.execute("TRUNCATE " + schemaPart + "`" + tablePrefix() + "job_logs`");
                    s.execute("TRUNCATE " + schemaPart + "`" + tablePrefix() + "job_progress`");
                    s.execute(sql("empty_jobs"));
                } finally {
                    s.execute("SET FOREIGN_KEY_CHECKS = 1");
                }
            }
            return;
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql("delete_kind"))) {
            ps.setString(1, kind);
            ps.executeUpdate();
        }
    }

    /**
     * Jobs not yet terminal, as the database sees them; limited to one kind, its available and
     * running jobs (a benchmark handler never fails, so its jobs are never scheduled or retryable).
     */
    public long unfinished() throws SQLException {
        if (kind == null) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery(sql("count_unfinished"))) {
                rs.next();
                return rs.getLong(1);
            }
        }
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql("count_unfinished_kind"))) {
            ps.setString(1, kind);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Waits until no job is left unfinished; polls every few milliseconds. */
    public void awaitDrained(long timeoutNanos) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (unfinished() > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("jobs left unfinished after the benchmark's time limit");
            }
            Thread.sleep(2);
        }
    }
}
