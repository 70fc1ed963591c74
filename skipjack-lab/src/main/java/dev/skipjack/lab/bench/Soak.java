package dev.skipjack.lab.bench;

import dev.skipjack.JobKind;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * BENCHMARK.md's soak: {@link OfferedLoad} at a sustainable rate for a long time with pruning on
 * and a short retention (finished jobs kept {@link #RETENTION}, pruned every
 * {@link #PRUNE_INTERVAL}), watching the jobs table's dead tuples and heap and index sizes. After
 * a warm-up of one retention plus three prune intervals the table holds about rate × retention
 * rows and should stop growing: the first measurement is taken then, the last at the end.
 *
 * <p>Verdict {@code flat}: heap and index sizes at the end at most {@link #GROWTH_LIMIT} times
 * their size after the warm-up, and the highest dead-tuple count of the last third of the measured
 * period at most {@link #GROWTH_LIMIT} times that of the first third (plus {@link #DEAD_SLACK}).
 * Dead tuples rise and fall with every autovacuum pass, so the verdict compares peaks over a
 * window rather than two instants; the RESULT line still reports the two instants.
 */
public final class Soak {

    public static final Duration RETENTION = Duration.ofMinutes(1);
    public static final Duration PRUNE_INTERVAL = Duration.ofSeconds(5);
    public static final Duration WARM_UP = RETENTION.plus(PRUNE_INTERVAL.multipliedBy(3));
    static final Duration SAMPLE_INTERVAL = Duration.ofSeconds(10);
    static final double GROWTH_LIMIT = 2.0;
    static final long DEAD_SLACK = 10_000;

    /** One reading of the jobs table. */
    public record TableStats(long deadTuples, long liveTuples, long vacuums, long tableBytes, long indexBytes) {
    }

    /** What a soak measured. */
    public record Result(int ratePerSecond, double minutes, long enqueued, TableStats start, TableStats end,
                         long deadPeakFirstThird, long deadPeakLastThird, long depthMax, String autovacuum) {

        public boolean flat() {
            return end.tableBytes() <= GROWTH_LIMIT * start.tableBytes()
                    && end.indexBytes() <= GROWTH_LIMIT * start.indexBytes()
                    && deadPeakLastThird <= GROWTH_LIMIT * deadPeakFirstThird + DEAD_SLACK;
        }
    }

    private final DataSource dataSource;
    private final String schema;

    public Soak(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
    }

    public Result run(int ratePerSecond, Duration length, int concurrency, PrintWriter out) throws Exception {
        if (length.compareTo(WARM_UP.plus(SAMPLE_INTERVAL.multipliedBy(3))) < 0) {
            throw new IllegalArgumentException("a soak needs at least " + WARM_UP.plus(SAMPLE_INTERVAL.multipliedBy(3)).toSeconds()
                    + " s: " + WARM_UP.toSeconds() + " s of warm-up and three samples");
        }
        Skipjack worker = Skipjack.builder(dataSource).schema(schema)
                .queue(SkipjackDrain.QUEUE, concurrency)
                .handler(JobKind.of(SteadyStream.KIND, OfferedLoad.Args.class), job -> Outcome.complete())
                .retention(JobState.COMPLETED, RETENTION)
                .retention(JobState.CANCELLED, RETENTION)
                .retention(JobState.DISCARDED, RETENTION)
                .pruneInterval(PRUNE_INTERVAL)
                .build();
        Skipjack producer = Skipjack.builder(dataSource).schema(schema).kind(JobKind.of(SteadyStream.KIND, OfferedLoad.Args.class)).build();
        BenchTable table = new BenchTable(dataSource, worker);
        table.empty();
        String autovacuum = autovacuumSettings(table);
        out.println("soak: autovacuum settings " + autovacuum);
        out.flush();
        worker.start();
        OfferedLoad load = new OfferedLoad(producer, SteadyStream.KIND, 0, ratePerSecond, new long[0]);
        List<TableStats> measured = new ArrayList<>();
        TableStats start = null;
        long depthMax = 0;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            long t0 = System.nanoTime();
            long end = t0 + length.toNanos();
            long warmUpEnd = t0 + WARM_UP.toNanos();
            load.start();
            long next = t0;
            while (System.nanoTime() < end) {
                next = Math.min(next + SAMPLE_INTERVAL.toNanos(), end);
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                long depth = SteadyStream.count(s, table.sql("count_backlog"));
                TableStats now = stats(c, table, worker.jobsTable());
                boolean warm = System.nanoTime() >= warmUpEnd;
                if (warm) {
                    depthMax = Math.max(depthMax, depth);
                    if (start == null) {
                        start = now;
                    }
                    measured.add(now);
                }
                out.printf(Locale.ROOT, "soak %5.1f/%d min%s: enqueued %,d, depth %,d, live %,d, dead %,d, vacuums %d, table %,d kB, indexes %,d kB%n",
                        (System.nanoTime() - t0) / 60e9, length.toMinutes(), warm ? "" : " (warm-up)", load.sent(), depth,
                        now.liveTuples(), now.deadTuples(), now.vacuums(), now.tableBytes() / 1024, now.indexBytes() / 1024);
                out.flush();
            }
            load.stop();
        } finally {
            load.stop();
            worker.stop(Duration.ofSeconds(10));
        }
        int third = Math.max(1, measured.size() / 3);
        long firstPeak = measured.subList(0, third).stream().mapToLong(TableStats::deadTuples).max().orElse(0);
        long lastPeak = measured.subList(measured.size() - third, measured.size()).stream()
                .mapToLong(TableStats::deadTuples).max().orElse(0);
        return new Result(ratePerSecond, length.toSeconds() / 60.0, load.sent(), start, measured.get(measured.size() - 1),
                firstPeak, lastPeak, depthMax, autovacuum);
    }

    private static TableStats stats(Connection c, BenchTable table, String jobsTable) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(table.sql("table_stats"))) {
            for (int i = 1; i <= 3; i++) {
                ps.setString(i, jobsTable);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no statistics for " + jobsTable);
                }
                return new TableStats(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5));
            }
        }
    }

    private static String autovacuumSettings(BenchTable table) throws SQLException {
        StringBuilder settings = new StringBuilder();
        try (Connection c = table.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(table.sql("autovacuum_settings"))) {
            while (rs.next()) {
                if (settings.length() > 0) {
                    settings.append(' ');
                }
                settings.append(rs.getString(1)).append('=').append(rs.getString(2)).append(rs.getString(3));
            }
        }
        return settings.toString();
    }
}
