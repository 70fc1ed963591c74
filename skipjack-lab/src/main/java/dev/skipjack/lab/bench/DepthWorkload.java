package dev.skipjack.lab.bench;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * BENCHMARK.md's depth: the drain (and the raw ceiling, alternated with it) on a table that already
 * holds 0, 1M and 10M terminal rows plus rows scheduled far ahead. The filler shares the drain's
 * queue, the adversarial case for the claim (same prefix of jobs_claim_idx's key), but not its kind,
 * so each run deletes only its own jobs and the filler stays. Depths are filled in ascending order,
 * each on top of the last, by server-side INSERT ... SELECT from generate_series.
 */
public final class DepthWorkload {

    public static final String FILLER_KIND = "bench-filler";
    /** Scheduled-for-later rows at every depth but 0 (fewer when the depth itself is smaller). */
    public static final long SCHEDULED_ROWS = 1_000_000;
    /** Rows per INSERT, each its own transaction, so WAL and memory stay bounded at 10M. */
    static final long FILL_CHUNK = 1_000_000;

    private final DataSource dataSource;
    private final String schema;
    private final BenchTable table;
    private long finishedRows;
    private long scheduledRows;

    public DepthWorkload(DataSource dataSource, String schema, String jobsTable) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.table = new BenchTable(dataSource, jobsTable, dev.skipjack.Backend.POSTGRESQL); // PostgreSQL only: bench skips it elsewhere
    }

    /**
     * The medians per depth, in ascending order of depth: drain and ceiling in jobs/s, pickup in ms.
     * {@code line} is the RESULT line.
     */
    public record Result(String line, List<Long> depths, double[] drainPerSecond, double[] ceilingPerSecond,
                         double[] pickupP50Ms, double[] pickupP99Ms) {
    }

    /**
     * Runs every depth (0 is always included, as the baseline): the drain and ceiling rounds, then
     * the pickup latency of one idle worker ({@link IdleLatency}, {@code latencySamples} jobs one at
     * a time 20 ms apart) on the same table.
     */
    public Result run(List<Long> depths, int jobs, int concurrency, int runs, int latencySamples, PrintWriter out)
            throws Exception {
        TreeSet<Long> ordered = new TreeSet<>(depths);
        ordered.add(0L);
        table.empty(); // the filler is built up from nothing, depth by depth
        finishedRows = 0;
        scheduledRows = 0;
        RawCeiling ceiling = new RawCeiling(table.onlyKind(SkipjackDrain.KIND));
        SkipjackDrain drain = new SkipjackDrain(dataSource, dataSource, schema, true);
        IdleLatency pickup = new IdleLatency(dataSource, schema, true);
        int warmUp = RawCeiling.warmUpJobs(jobs);
        ceiling.run(warmUp, SkipjackDrain.QUEUE, SkipjackDrain.KIND);
        drain.run(warmUp, concurrency);

        List<Long> measured = new ArrayList<>(ordered);
        double[] drainMedians = new double[measured.size()];
        double[] ceilingMedians = new double[measured.size()];
        double[] pickupP50 = new double[measured.size()];
        double[] pickupP99 = new double[measured.size()];
        for (int d = 0; d < measured.size(); d++) {
            long depth = measured.get(d);
            fillTo(depth, out);
            double[] ceil = new double[runs];
            double[] sj = new double[runs];
            for (int r = 0; r < runs; r++) {
                ceiling.run(RawCeiling.roundWarmUpJobs(jobs), SkipjackDrain.QUEUE, SkipjackDrain.KIND);
                ceil[r] = ceiling.run(jobs, SkipjackDrain.QUEUE, SkipjackDrain.KIND).processPerSecond();
                drain.run(RawCeiling.roundWarmUpJobs(jobs), concurrency);
                sj[r] = drain.run(jobs, concurrency).processPerSecond();
                out.printf(Locale.ROOT, "depth %,d, round %d/%d: ceiling process %,.0f/s; skipjack process %,.0f/s%n",
                        depth, r + 1, runs, ceil[r], sj[r]);
                out.flush();
            }
            ceilingMedians[d] = Median.of(ceil);
            drainMedians[d] = Median.of(sj);
            IdleLatency.Percentiles p = pickup.run(latencySamples, IdleLatency.GAP, true, concurrency);
            pickupP50[d] = p.p50();
            pickupP99[d] = p.p99();
            out.printf(Locale.ROOT, "depth %,d: pickup of %d jobs one at a time, p50 %.2f ms, p99 %.2f ms%n", depth,
                    latencySamples, p.p50(), p.p99());
            out.flush();
        }
        int last = measured.size() - 1;
        StringBuilder result = new StringBuilder(String.format(Locale.ROOT,
                "RESULT workload=depth jobs=%d concurrency=%d runs=%d scheduled_rows=%d", jobs, concurrency, runs,
                scheduledFor(measured.get(last))));
        for (int d = 0; d < measured.size(); d++) {
            result.append(String.format(Locale.ROOT, " %s_per_s=%.0f", key(measured.get(d)), drainMedians[d]));
        }
        double drainRatio = drainMedians[last] / drainMedians[0];
        result.append(String.format(Locale.ROOT, " ratio_largest_to_empty=%.2f", drainRatio));
        for (int d = 0; d < measured.size(); d++) {
            result.append(String.format(Locale.ROOT, " ceiling_%s_per_s=%.0f", key(measured.get(d)), ceilingMedians[d]));
        }
        double ceilingRatio = ceilingMedians[last] / ceilingMedians[0];
        // Depths are measured one after another, minutes apart: the drain's share of the ceiling at
        // each depth cancels the machine's weather between them, which the plain ratio does not.
        result.append(String.format(Locale.ROOT, " ceiling_ratio_largest_to_empty=%.2f ratio_to_ceiling_largest_to_empty=%.2f",
                ceilingRatio, drainRatio / ceilingRatio));
        for (int d = 0; d < measured.size(); d++) {
            result.append(String.format(Locale.ROOT, " %s_pickup_p50_ms=%.2f %s_pickup_p99_ms=%.2f",
                    key(measured.get(d)), pickupP50[d], key(measured.get(d)), pickupP99[d]));
        }
        double pickupRatio = pickupP50[last] / pickupP50[0];
        boolean drainFlat = FlatVerdict.throughputFlat(drainRatio);
        boolean pickupFlat = FlatVerdict.latencyFlat(pickupRatio);
        result.append(String.format(Locale.ROOT, " pickup_p50_ratio_largest_to_empty=%.2f"
                        + " pickup_p99_ratio_largest_to_empty=%.2f drain_flat=%s pickup_flat=%s flat=%s", pickupRatio,
                pickupP99[last] / pickupP99[0], FlatVerdict.yesNo(drainFlat), FlatVerdict.yesNo(pickupFlat),
                FlatVerdict.yesNo(drainFlat && pickupFlat)));
        return new Result(result.toString(), List.copyOf(measured), drainMedians, ceilingMedians, pickupP50, pickupP99);
    }

    /** {@code empty}, {@code d200k}, {@code d1m}, {@code d10m}: the RESULT key of a depth. */
    static String key(long depth) {
        if (depth == 0) {
            return "empty";
        }
        if (depth % 1_000_000 == 0) {
            return "d" + depth / 1_000_000 + "m";
        }
        if (depth % 1_000 == 0) {
            return "d" + depth / 1_000 + "k";
        }
        return "d" + depth;
    }

    private static long scheduledFor(long depth) {
        return Math.min(SCHEDULED_ROWS, depth);
    }

    /** Adds filler until the table holds {@code depth} terminal rows and its scheduled rows; then VACUUM (ANALYZE). */
    private void fillTo(long depth, PrintWriter out) throws SQLException {
        long scheduledTarget = scheduledFor(depth);
        if (depth <= finishedRows && scheduledTarget <= scheduledRows) {
            // Still settled like every other depth: the warm-up's deleted rows would otherwise leave
            // dead index entries for the claims to step over, on the empty table only (it measured
            // ceiling and drain both about half their rate at 1M rows, just vacuumed).
            long vacuumStart = System.nanoTime();
            vacuumAnalyze();
            out.printf(Locale.ROOT, "depth %,d: nothing to fill, VACUUM (ANALYZE) in %.1f s%n", depth,
                    (System.nanoTime() - vacuumStart) / 1e9);
            return;
        }
        long start = System.nanoTime();
        long addedFinished = depth - finishedRows;
        fill("depth_fill_finished", finishedRows, depth, false);
        finishedRows = depth;
        double finishedSeconds = (System.nanoTime() - start) / 1e9;
        long scheduledStart = System.nanoTime();
        long addedScheduled = scheduledTarget - scheduledRows;
        fill("depth_fill_scheduled", scheduledRows, scheduledTarget, true);
        scheduledRows = scheduledTarget;
        double scheduledSeconds = (System.nanoTime() - scheduledStart) / 1e9;
        long vacuumStart = System.nanoTime();
        vacuumAnalyze();
        double vacuumSeconds = (System.nanoTime() - vacuumStart) / 1e9;
        out.printf(Locale.ROOT, "depth %,d: filled +%,d terminal rows in %.1f s, +%,d scheduled rows in %.1f s,"
                        + " VACUUM (ANALYZE) in %.1f s; total %.1f s%n", depth, addedFinished, finishedSeconds,
                addedScheduled, scheduledSeconds, vacuumSeconds, (System.nanoTime() - start) / 1e9);
        out.println("  sizes: " + sizes());
        out.flush();
    }

    private void vacuumAnalyze() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(table.sql("depth_vacuum_analyze"));
        }
    }

    private void fill(String statement, long from, long to, boolean scheduled) throws SQLException {
        String sql = table.sql(statement);
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            c.setAutoCommit(true); // one transaction per chunk
            for (long first = from; first < to; first += FILL_CHUNK) {
                int p = 1;
                ps.setString(p++, SkipjackDrain.QUEUE);
                ps.setString(p++, FILLER_KIND);
                if (scheduled) {
                    ps.setLong(p++, BenchTable.FAR_FUTURE.toSeconds());
                }
                ps.setLong(p++, first);
                ps.setLong(p, Math.min(to, first + FILL_CHUNK));
                ps.executeUpdate();
            }
        }
    }

    private String sizes() throws SQLException {
        List<String> parts = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(table.sql("depth_sizes"))) {
            ps.setString(1, table.jobsTable());
            ps.setString(2, table.jobsTable());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    parts.add(String.format(Locale.ROOT, "%s %.1f MB", rs.getString(1), rs.getLong(2) / 1e6));
                }
            }
        }
        return String.join(", ", parts);
    }
}
