package dev.skipjack.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The jobs table a benchmark runs on, and the benchmark's own SQL (resource files next to this
 * class, one statement each) rendered for it.
 */
public final class BenchTable {

    private final DataSource dataSource;
    private final String jobsTable;

    /** {@code jobsTable} is {@link dev.skipjack.Skipjack#jobsTable()}: validated and quoted by Skipjack. */
    public BenchTable(DataSource dataSource, String jobsTable) {
        this.dataSource = dataSource;
        this.jobsTable = jobsTable;
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

    /** Empties the table so a run starts from an empty queue. */
    public void empty() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql("empty_jobs"));
        }
    }

    /** Jobs not yet terminal, as the database sees them. */
    public long unfinished() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql("count_unfinished"))) {
            rs.next();
            return rs.getLong(1);
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
