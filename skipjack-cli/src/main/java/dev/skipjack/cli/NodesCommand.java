package dev.skipjack.cli;

import dev.skipjack.NodeInfo;
import dev.skipjack.cli.output.JsonOutput;
import dev.skipjack.cli.output.Table;
import dev.skipjack.internal.json.JobJson;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** {@code skipjack nodes}: the started clients running now, with the jobs each runs and for how long. */
@Command(name = "nodes", mixinStandardHelpOptions = true,
        description = {"Lists the nodes running now with their queues and the jobs each runs, longest first.",
                "With --shard, every shard's nodes, each with its shard."})
public final class NodesCommand extends ReadCommand {

    @Override
    int print(ShardedConnection db, PrintWriter out) {
        Map<String, List<NodeInfo>> perShard = db.admin().nodes();
        if (json) {
            JsonOutput.print(out, JobJson.perShard(perShard, JobJson::nodes, db.sharded()));
        } else if (perShard.values().stream().allMatch(List::isEmpty)) {
            out.println("No node is running.");
        } else {
            Table t = db.sharded() ? new Table("SHARD", "NODE", "QUEUES", "STARTED", "RUNNING", "LONGEST").right(4)
                    : new Table("NODE", "QUEUES", "STARTED", "RUNNING", "LONGEST").right(3);
            perShard.forEach((shard, nodes) -> {
                for (NodeInfo n : nodes) {
                    Object[] row = {n.workerId(), n.queues(), n.startedAt(), n.running().size(),
                            n.running().stream().map(NodeInfo.RunningJob::runningFor).max(Duration::compareTo)
                                    .map(NodesCommand::human).orElse("-")};
                    t.row(db.sharded() ? Table.prepend(shard, row) : row);
                }
            });
            t.print(out, Table.terminalWidth());
            perShard.forEach((shard, nodes) -> {
                for (NodeInfo n : nodes) {
                    for (NodeInfo.RunningJob r : n.running()) {
                        out.printf("  %s runs job %s (%s on %s) for %s%n", Table.clean(n.workerId()),
                                db.admin().format(new dev.skipjack.ShardedSkipjack.ShardJobId(shard, r.id())),
                                Table.clean(r.kind()), r.queue(), human(r.runningFor()));
                    }
                }
            });
        }
        return ExitCode.OK;
    }

    private static String human(Duration d) {
        long s = d.toSeconds();
        return s < 60 ? s + "s" : s < 3600 ? (s / 60) + "m" + (s % 60) + "s" : (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }
}
