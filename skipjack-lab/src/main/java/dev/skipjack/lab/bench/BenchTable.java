package dev.skipjack.lab.bench;

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
 * class, one statement each) rendered for it.
 */
public final class BenchTable {

    /** How far ahead rows scheduled by the benchmark itself (depth's filler) are due, at least. */
    public static final Duration FAR_FUTURE = Duration.ofDays(365);

    private final DataSource dataSource;
    private final String jobsTable;
    /** The kind {@link #empty()} and {@link #unfinished()} are limited to; null for the whole table. */
    private final String kind;

    /** {@code jobsTable} is {@link dev.skipjack.Skipjack#jobsTable()}: validated and quoted by Skipjack. */
    public BenchTable(DataSource dataSource, String jobsTable) {
        this(dataSource, jobsTable, null);
    }

    private BenchTable(DataSource dataSource, String jobsTable, String kind) {
        this.dataSource = dataSource;
        this.jobsTable = jobsTable;
        this.kind = kind;
    }

    /**
     * The same table with {@link #empty()} and {@link #unfinished()} limited to one kind's rows, so
     * rows of other kinds (depth's millions of filler rows) survive between runs.
     */
    public BenchTable onlyKind(String kind) {
        return new BenchTable(dataSource, jobsTable, kind);
    }

    /** The quoted, schema-qualified jobs table. */
    public String jobsTable() {
        return jobsTable;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The statement in {@code <name>.sql}, for this table. */
    public String sql(String name) {
        String path = name + ".sql";
        try (InputStream in = BenchTable.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing benchmark SQL " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("{{jobs}}", jobsTable);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Empties the table (or deletes this kind's rows) so a run starts from an empty queue. */
    public void empty() throws SQLException {
        if (kind == null) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute(sql("empty_jobs"));
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
