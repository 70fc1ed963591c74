package dev.skipjack.lab.bench;

import dev.skipjack.Backend;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The raw SQL ceiling of BENCHMARK.md: a minimal JDBC loop on Skipjack's own table doing the least
 * correct work per job. Multi-row insert; claim batch 100; one completing UPDATE per batch; 8
 * client threads. No retries, heartbeats or framework. The claim is the backend's own pattern, as
 * Skipjack's: on PostgreSQL the single-statement CTE ({@code FOR UPDATE SKIP LOCKED} +
 * {@code UPDATE ... RETURNING}); on MariaDB and MySQL a {@code SELECT ... FOR UPDATE SKIP LOCKED}
 * and an {@code UPDATE} by primary key in one READ COMMITTED transaction; on SQLite one
 * conditional {@code UPDATE ... RETURNING} under the write lock. Lists are arrays on PostgreSQL
 * and JSON arrays elsewhere (the drivers there have none).
 */
public final class RawCeiling {

    public static final int THREADS = 8;
    public static final int CLAIM_BATCH = 100;
    /**
     * Jobs of the unreported warm-up round of the ceiling and of Skipjack before the measured
     * rounds: at least this many, or a tenth of the measured N. Both are measured warm, as a
     * long-running worker runs. The ceiling's loop is a few lines and compiles at once;
     * Skipjack's path (claim rounds, buffer, handler dispatch, acknowledgement batching) is only
     * fully compiled by C2 after tens of thousands of jobs: with a 2,000-job warm-up the first
     * measured 20,000-job rounds ran partly interpreted (ratio 0.66, against 0.83 for the same
     * build warmed by a 200,000-job round).
     */
    public static final int WARM_UP_MIN_JOBS = 50_000;

    /** The warm-up round's size for a measured size of {@code jobs} (smaller for tiny smoke runs). */
    public static int warmUpJobs(int jobs) {
        return Math.max(jobs / 10, (int) Math.min(WARM_UP_MIN_JOBS, jobs * 5L));
    }

    /**
     * Jobs of the unreported run each side gets again right before each of its measured runs.
     * The two sides share the driver's hot code (statement execution, binding, result parsing)
     * with different type profiles: JFR shows the JIT deoptimizing pgjdbc's execute and bind
     * paths at every switch between them, and C2 recompiling Skipjack's claim and completion
     * methods (with the driver inlined) for 1-2 s of CPU inside the next measured drain. A short
     * run of the same side first takes that recompilation out of the measurement, for both
     * sides alike; in a worker JVM nothing else runs to disturb the profiles.
     */
    public static final int ROUND_WARM_UP_JOBS = 40_000;

    /** The per-round warm-up for a measured size of {@code jobs}: twice N, at most {@link #ROUND_WARM_UP_JOBS}. */
    public static int roundWarmUpJobs(int jobs) {
        return (int) Math.min(ROUND_WARM_UP_JOBS, jobs * 2L);
    }
    /** Rows per insert statement, the same as Skipjack's bulk enqueue uses. */
    static final int INSERT_ROWS_PER_STATEMENT = 5_000;

    /** Jobs per second of one phase. */
    public record Rates(double enqueuePerSecond, double processPerSecond) {
    }

    private final BenchTable table;

    public RawCeiling(BenchTable table) {
        this.table = table;
    }

    /** Runs enqueue then drain of {@code jobs} jobs on an empty table. */
    public Rates run(int jobs, String queue, String kind) throws Exception {
        table.empty();
        double enqueue = enqueue(jobs, queue, kind);
        double process = drain(jobs, queue);
        if (table.unfinished() != 0) {
            throw new IllegalStateException("ceiling left jobs unfinished");
        }
        return new Rates(enqueue, process);
    }

    /** Whether the claim takes two statements in a transaction (no UPDATE ... RETURNING). */
    private boolean twoStepClaim() {
        return table.backend() == Backend.MARIADB || table.backend() == Backend.MYSQL;
    }

    /** Binds a list parameter: an array on PostgreSQL, a JSON array elsewhere. */
    private void setList(Connection c, PreparedStatement ps, int index, String sqlType, List<?> values, boolean quoted)
            throws SQLException {
        if (table.backend() == Backend.POSTGRESQL) {
            // Typed arrays, as Skipjack binds its lists: the driver's best encoding for both sides.
            Object[] typed = sqlType.equals("bigint") ? values.toArray(new Long[0]) : values.toArray(new String[0]);
            ps.setArray(index, c.createArrayOf(sqlType, typed));
            return;
        }
        StringBuilder json = new StringBuilder("[");
        for (Object v : values) {
            json.append(json.length() == 1 ? "" : ",");
            // Quoted values here are the benchmark's own {"n": i} payloads: only '"' needs escaping.
            json.append(quoted ? '"' + v.toString().replace("\"", "\\\"") + '"' : v.toString());
        }
        ps.setString(index, json.append(']').toString());
    }

    /** The enqueue phase alone: the jobs inserted in one transaction; returns jobs per second. */
    double enqueue(int jobs, String queue, String kind) throws SQLException {
        String sql = table.sql("ceiling_insert");
        PhaseWindow.open();
        long start = System.nanoTime();
        try (Connection c = table.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int from = 0; from < jobs; from += INSERT_ROWS_PER_STATEMENT) {
                    int to = Math.min(jobs, from + INSERT_ROWS_PER_STATEMENT);
                    List<String> args = new ArrayList<>(to - from);
                    for (int i = from; i < to; i++) {
                        args.add("{\"n\": " + i + "}");
                    }
                    ps.setString(1, queue);
                    ps.setString(2, kind);
                    setList(c, ps, 3, "text", args, true);
                    ps.executeUpdate();
                }
            }
            c.commit();
            c.setAutoCommit(true);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        PhaseWindow.close();
        return jobs / seconds;
    }

    /** The drain phase alone, on a table holding exactly {@code jobs} available jobs; returns jobs per second. */
    double drain(int jobs, String queue) throws Exception {
        String claim = table.sql("ceiling_claim");
        String claimApply = twoStepClaim() ? table.sql("ceiling_claim_apply") : null;
        String complete = table.sql("ceiling_complete");
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            PhaseWindow.open();
            long start = System.nanoTime();
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(threads.submit(() -> claimUntilEmpty(claim, claimApply, complete, queue)));
            }
            long total = 0;
            for (Future<Long> f : done) {
                total += f.get(10, TimeUnit.MINUTES);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            PhaseWindow.close();
            if (total != jobs) {
                throw new IllegalStateException("ceiling processed " + total + " jobs of " + jobs);
            }
            return jobs / seconds;
        } finally {
            threads.shutdownNow();
        }
    }

    /** {@code claimApplySql} is step 2 of a two-statement claim, or null where one statement claims. */
    private long claimUntilEmpty(String claimSql, String claimApplySql, String completeSql, String queue)
            throws SQLException {
        long processed = 0;
        try (Connection c = table.dataSource().getConnection();
             PreparedStatement claim = c.prepareStatement(claimSql);
             PreparedStatement claimApply = claimApplySql == null ? null : c.prepareStatement(claimApplySql);
             PreparedStatement complete = c.prepareStatement(completeSql)) {
            boolean twoStep = claimApply != null;
            if (twoStep) {
                // As Skipjack's claim there: no gap locks, so claimers and enqueues do not wait on each other.
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            // Two statements claim in one transaction: stay out of auto-commit and commit each step,
            // rather than pay a round trip to switch auto-commit off and on again per batch.
            c.setAutoCommit(!twoStep);
            while (true) {
                claim.setString(1, queue);
                claim.setInt(2, CLAIM_BATCH);
                List<Long> ids = new ArrayList<>(CLAIM_BATCH);
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                        rs.getString(2); // the payload is read, as a worker would
                    }
                }
                if (twoStep) {
                    if (!ids.isEmpty()) {
                        setList(c, claimApply, 1, "bigint", ids, false);
                        claimApply.executeUpdate();
                    }
                    c.commit();
                }
                if (ids.isEmpty()) {
                    return processed;
                }
                setList(c, complete, 1, "bigint", ids, false);
                complete.executeUpdate();
                if (twoStep) {
                    c.commit();
                }
                processed += ids.size();
            }
        }
    }
}
