package dev.skipjack.lab.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Outcome;
import dev.skipjack.ShardedSkipjack;
import dev.skipjack.Skipjack;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import javax.sql.DataSource;

/**
 * Issue 16, item 4: the drain of N jobs through a {@link ShardedSkipjack} over 1, 2, 3, ...
 * databases of one server, each shard drained by its own workers at the bench's concurrency.
 * The databases are made on the bench's server ({@code skipjack_bench_shard_1}, ...); on one
 * machine they share its cores, so this measures what sharding costs and where one server's
 * ceiling is, not what separate servers would add.
 */
public final class ShardsWorkload {

    /** A database name of the bench's shards: plain, fixed, so a rerun reuses them. */
    public static String databaseName(int shard) {
        return "skipjack_bench_shard_" + shard;
    }

    private final DataSource admin;
    private final IntFunction<String> urlOfDatabase;
    private final String user;
    private final String password;

    /**
     * @param admin          a pool on the bench's database, to create the shard databases
     * @param urlOfDatabase  the JDBC URL of the server's database of the given shard number
     */
    public ShardsWorkload(DataSource admin, IntFunction<String> urlOfDatabase, String user, String password) {
        this.admin = admin;
        this.urlOfDatabase = urlOfDatabase;
        this.user = user;
        this.password = password;
    }

    /** One RESULT line per shard count: the median drain rate of {@code runs} runs, and its ratio to one shard's. */
    public List<String> run(List<Integer> shardCounts, int jobs, int concurrency, int runs, PrintWriter out) throws Exception {
        int most = shardCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
        List<HikariDataSource> pools = new ArrayList<>();
        List<String> results = new ArrayList<>();
        try {
            for (int i = 1; i <= most; i++) {
                createDatabase(databaseName(i));
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(urlOfDatabase.apply(i));
                if (user != null) {
                    config.setUsername(user);
                }
                if (password != null) {
                    config.setPassword(password);
                }
                config.setMaximumPoolSize(concurrency + 8);
                pools.add(new HikariDataSource(config));
            }
            // Interleaved: round r drains once per shard count, so a drift of the machine over the
            // run (warm-up, another process) lands on every count alike instead of on one.
            for (int shards : shardCounts) {
                drain(pools.subList(0, shards), Math.min(jobs, 2_000), concurrency); // warm-up, unreported
            }
            double[][] rates = new double[shardCounts.size()][runs];
            for (int r = 0; r < runs; r++) {
                for (int i = 0; i < shardCounts.size(); i++) {
                    int shards = shardCounts.get(i);
                    rates[i][r] = drain(pools.subList(0, shards), jobs, concurrency);
                    out.printf(Locale.ROOT, "round %d/%d, %d shard(s): %,.0f jobs/s%n", r + 1, runs, shards, rates[i][r]);
                    out.flush();
                }
            }
            double oneShard = shardCounts.contains(1) ? Median.of(rates[shardCounts.indexOf(1)]) : Double.NaN;
            for (int i = 0; i < shardCounts.size(); i++) {
                double median = Median.of(rates[i]);
                results.add(String.format(Locale.ROOT, "RESULT workload=shards shards=%d jobs=%d concurrency_per_shard=%d runs=%d"
                        + " process_per_s=%.0f ratio_to_one_shard=%s", shardCounts.get(i), jobs, concurrency, runs, median,
                        Double.isNaN(oneShard) ? "none" : String.format(Locale.ROOT, "%.2f", median / oneShard)));
            }
        } finally {
            pools.forEach(HikariDataSource::close);
        }
        return results;
    }

    /** Enqueues {@code jobs} no-op jobs spread over the shards, starts every shard's workers and times the drain. */
    private double drain(List<HikariDataSource> shards, int jobs, int concurrency) throws Exception {
        LongAdder handled = new LongAdder();
        JobKind<SkipjackDrain.Args> kind = JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class);
        ShardedSkipjack.Builder builder = ShardedSkipjack.builder(b -> b
                .queue(SkipjackDrain.QUEUE, concurrency)
                .handler(kind, job -> {
                    handled.increment();
                    return Outcome.complete();
                }));
        for (int i = 0; i < shards.size(); i++) {
            builder.shard("s" + (i + 1), shards.get(i));
        }
        ShardedSkipjack sharded = builder.build();
        sharded.migrate();
        List<BenchTable> tables = new ArrayList<>();
        for (String name : sharded.shardNames()) {
            Skipjack client = sharded.shard(name);
            BenchTable table = new BenchTable(shards.get(tables.size()), client);
            table.empty();
            tables.add(table);
        }
        List<JobRequest> requests = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of(kind, new SkipjackDrain.Args(i)));
        }
        sharded.enqueueAll(requests);
        long start = System.nanoTime();
        sharded.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (handled.sum() < jobs && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            for (BenchTable table : tables) {
                table.awaitDrained(Math.max(0, deadline - System.nanoTime()));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (handled.sum() < jobs) {
                throw new IllegalStateException("handlers ran " + handled.sum() + " of " + jobs + " jobs");
            }
            return jobs / seconds;
        } finally {
            for (String name : sharded.shardNames()) {
                sharded.shard(name).stop(Duration.ofSeconds(10));
            }
        }
    }

    private void createDatabase(String name) throws SQLException {
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
            if (product.contains("postgres")) {
                try (var exists = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
                    exists.setString(1, name);
                    try (var rs = exists.executeQuery()) {
                        if (rs.next()) {
                            return;
                        }
                    }
                }
                s.execute("CREATE DATABASE " + name);
            } else {
                s.execute("CREATE DATABASE IF NOT EXISTS " + name);
            }
        }
    }
}
