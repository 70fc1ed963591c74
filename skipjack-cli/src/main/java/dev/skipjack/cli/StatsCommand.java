package dev.skipjack.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.QueueInfo;
import dev.skipjack.ShardedAdmin;
import dev.skipjack.ThroughputBucket;
import dev.skipjack.cli.output.JsonOutput;
import dev.skipjack.cli.output.Table;
import dev.skipjack.internal.json.JobJson;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code skipjack stats}: counts per queue and state and recent throughput, once or refreshed with {@code --watch}. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Job counts per queue and state, and jobs finished in the last minute and hour.",
                "With --watch, redraws every --interval until interrupted.",
                "With --shard [NAME=]URL (repeatable), also reads the other databases of a ShardedSkipjack",
                "and shows their sums, and each database's total."})
public final class StatsCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;
    @Mixin
    private DatabaseOptions database;
    @Option(names = "--json", description = "Print JSON for scripts (one document per refresh with --watch).")
    private boolean json;
    @Option(names = {"-w", "--watch"}, description = "Refresh until interrupted (Ctrl-C).")
    private boolean watch;
    @Option(names = "--interval", defaultValue = "2s", converter = DurationConverter.class,
            description = "Refresh interval with --watch (default: ${DEFAULT-VALUE}).")
    private Duration interval;
    @Option(names = "--count", paramLabel = "N", description = "With --watch, stop after N refreshes.")
    private Integer count;
    @Mixin
    private ShardOptions shards;

    @Override
    public Integer call() throws InterruptedException {
        CommandLine cl = spec.commandLine();
        if (interval.toMillis() < 100) {
            throw new CommandLine.ParameterException(cl, "--interval must be at least 100ms");
        }
        PrintWriter out = cl.getOut();
        try (ShardedConnection db = ShardedConnection.open(cl, database, shards)) {
            for (int i = 0; ; i++) {
                if (watch && !json && i > 0) {
                    out.print("\033[H\033[2J"); // home and clear: redraw in place
                }
                show(db, out);
                if (!watch || (count != null && i + 1 >= count)) {
                    return ExitCode.OK;
                }
                Thread.sleep(interval.toMillis()); // the refresh period itself, not synchronization
            }
        }
    }

    private void show(ShardedConnection db, PrintWriter out) {
        Map<String, List<QueueInfo>> perShard = db.admin().queuesPerShard();
        List<ThroughputBucket> hour = db.admin().throughput(Duration.ofHours(1), Duration.ofMinutes(1));
        List<QueueInfo> queues = ShardedAdmin.sumQueues(perShard.values());
        long lastHour = hour.stream().mapToLong(b -> b.completed() + b.discarded() + b.cancelled()).sum();
        ThroughputBucket current = hour.get(hour.size() - 1);
        long lastMinute = hour.size() < 2 ? 0 : sum(hour.get(hour.size() - 2));
        Map<String, String> databases = db.displayNames();
        if (json) {
            ObjectNode n = JobJson.stats(Instant.now(), queues);
            n.put("finishedLastMinute", lastMinute);
            n.put("finishedThisMinute", sum(current));
            n.put("finishedLastHour", lastHour);
            if (db.sharded()) {
                var shardsNode = n.putArray("shards");
                perShard.forEach((shard, shardQueues) -> shardsNode.addObject().put("shard", shard)
                        .put("database", databases.get(shard)).put("jobs", shardQueues.stream().mapToLong(QueueInfo::total).sum()));
            }
            JsonOutput.print(out, n);
            return;
        }
        out.printf("Skipjack stats at %s%s%n%n", Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
                db.sharded() ? ", summed over " + databases.size() + " databases" : "");
        if (queues.isEmpty()) {
            out.println("No queues yet: no jobs have been enqueued.");
        } else {
            QueuesCommand.table(queues).print(out, Table.terminalWidth());
        }
        out.printf("%nFinished: %,d in the last full minute, %,d so far this minute, %,d in the last hour%n",
                lastMinute, sum(current), lastHour);
        if (db.sharded()) {
            perShard.forEach((shard, shardQueues) -> out.printf("  %,d jobs in shard %s (%s)%n",
                    shardQueues.stream().mapToLong(QueueInfo::total).sum(), shard, databases.get(shard)));
        }
        out.flush();
    }

    private static long sum(ThroughputBucket b) {
        return b.completed() + b.discarded() + b.cancelled();
    }
}
