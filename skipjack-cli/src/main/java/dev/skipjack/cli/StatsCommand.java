package dev.skipjack.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;
import dev.skipjack.SkipjackAdmin;
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
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/** {@code skipjack stats}: counts per queue and state and recent throughput, once or refreshed with {@code --watch}. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Job counts per queue and state, and jobs finished in the last minute and hour.",
                "With --watch, redraws every --interval until interrupted.",
                "With --shard URL (repeatable), also reads the other databases of a ShardedSkipjack",
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
    @Option(names = "--shard", paramLabel = "URL", converter = DatabaseUrl.Converter.class,
            description = "Another shard's database (repeatable; same --schema): its counts are added to --url's.")
    private List<DatabaseUrl> shards = new ArrayList<>();

    @Override
    public Integer call() throws InterruptedException {
        CommandLine cl = spec.commandLine();
        if (interval.toMillis() < 100) {
            throw new CommandLine.ParameterException(cl, "--interval must be at least 100ms");
        }
        PrintWriter out = cl.getOut();
        List<AdminConnection> databases = new ArrayList<>();
        try {
            databases.add(AdminConnection.open(cl, database));
            for (DatabaseUrl shard : shards) {
                databases.add(AdminConnection.open(cl, shard, database.schemaFor(shard, AdminConnection.DEFAULT_SCHEMA)));
            }
            for (int i = 0; ; i++) {
                if (watch && !json && i > 0) {
                    out.print("\033[H\033[2J"); // home and clear: redraw in place
                }
                show(databases, out);
                if (!watch || (count != null && i + 1 >= count)) {
                    return ExitCode.OK;
                }
                Thread.sleep(interval.toMillis()); // the refresh period itself, not synchronization
            }
        } finally {
            databases.forEach(AdminConnection::close);
        }
    }

    private void show(List<AdminConnection> databases, PrintWriter out) {
        List<List<QueueInfo>> perDatabase = new ArrayList<>();
        List<ThroughputBucket> hour = null;
        for (AdminConnection db : databases) {
            SkipjackAdmin admin = db.admin();
            perDatabase.add(admin.queues());
            hour = addBuckets(hour, admin.throughput(Duration.ofHours(1), Duration.ofMinutes(1)));
        }
        List<QueueInfo> queues = perDatabase.size() == 1 ? perDatabase.get(0) : mergeQueues(perDatabase);
        long lastHour = hour.stream().mapToLong(b -> b.completed() + b.discarded() + b.cancelled()).sum();
        ThroughputBucket current = hour.get(hour.size() - 1);
        long lastMinute = hour.size() < 2 ? 0 : sum(hour.get(hour.size() - 2));
        if (json) {
            ObjectNode n = JobJson.stats(Instant.now(), queues);
            n.put("finishedLastMinute", lastMinute);
            n.put("finishedThisMinute", sum(current));
            n.put("finishedLastHour", lastHour);
            if (databases.size() > 1) {
                var shardsNode = n.putArray("shards");
                for (int i = 0; i < databases.size(); i++) {
                    shardsNode.addObject().put("database", databases.get(i).displayName())
                            .put("jobs", perDatabase.get(i).stream().mapToLong(QueueInfo::total).sum());
                }
            }
            JsonOutput.print(out, n);
            return;
        }
        out.printf("Skipjack stats at %s%s%n%n", Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
                databases.size() > 1 ? ", summed over " + databases.size() + " databases" : "");
        if (queues.isEmpty()) {
            out.println("No queues yet: no jobs have been enqueued.");
        } else {
            QueuesCommand.table(queues).print(out, Table.terminalWidth());
        }
        out.printf("%nFinished: %,d in the last full minute, %,d so far this minute, %,d in the last hour%n",
                lastMinute, sum(current), lastHour);
        if (databases.size() > 1) {
            for (int i = 0; i < databases.size(); i++) {
                out.printf("  %,d jobs in %s%n", perDatabase.get(i).stream().mapToLong(QueueInfo::total).sum(),
                        databases.get(i).displayName());
            }
        }
        out.flush();
    }

    /**
     * One row per queue over every database: counts summed, the nodes serving it joined, paused
     * since the earliest pause when paused on any (a queue paused on one shard only is still a
     * queue an operator should look at).
     */
    static List<QueueInfo> mergeQueues(List<List<QueueInfo>> perDatabase) {
        Map<String, QueueInfo> merged = new TreeMap<>();
        for (List<QueueInfo> queues : perDatabase) {
            for (QueueInfo q : queues) {
                merged.merge(q.name(), q, (a, b) -> {
                    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
                    a.counts().forEach((state, n) -> counts.merge(state, n, Long::sum));
                    b.counts().forEach((state, n) -> counts.merge(state, n, Long::sum));
                    Set<String> servedBy = new LinkedHashSet<>(a.servedBy());
                    servedBy.addAll(b.servedBy());
                    Instant pausedAt = a.pausedAt() == null ? b.pausedAt()
                            : b.pausedAt() == null || a.pausedAt().isBefore(b.pausedAt()) ? a.pausedAt() : b.pausedAt();
                    return new QueueInfo(a.name(), pausedAt, counts, List.copyOf(servedBy));
                });
            }
        }
        return List.copyOf(merged.values());
    }

    /** Each database's minute buckets added position by position (every database buckets the same last hour). */
    private static List<ThroughputBucket> addBuckets(List<ThroughputBucket> sum, List<ThroughputBucket> more) {
        if (sum == null) {
            return more;
        }
        List<ThroughputBucket> out = new ArrayList<>(sum.size());
        for (int i = 0; i < sum.size(); i++) {
            ThroughputBucket a = sum.get(i);
            ThroughputBucket b = i < more.size() ? more.get(i) : new ThroughputBucket(a.start(), 0, 0, 0);
            out.add(new ThroughputBucket(a.start(), a.completed() + b.completed(), a.discarded() + b.discarded(),
                    a.cancelled() + b.cancelled()));
        }
        return out;
    }

    private static long sum(ThroughputBucket b) {
        return b.completed() + b.discarded() + b.cancelled();
    }
}
