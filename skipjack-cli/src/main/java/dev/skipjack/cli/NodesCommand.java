package dev.skipjack.cli;

import dev.skipjack.NodeInfo;
import dev.skipjack.cli.output.JsonOutput;
import dev.skipjack.cli.output.Table;
import dev.skipjack.internal.json.JobJson;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/** {@code skipjack nodes}: the started clients running now, with the jobs each runs and for how long. */
@Command(name = "nodes", mixinStandardHelpOptions = true,
        description = "Lists the nodes running now with their queues and the jobs each runs, longest first.")
public final class NodesCommand extends ReadCommand {

    @Override
    int print(AdminConnection db, PrintWriter out) {
        List<NodeInfo> nodes = db.admin().nodes();
        if (json) {
            JsonOutput.print(out, JobJson.nodes(nodes));
        } else if (nodes.isEmpty()) {
            out.println("No node is running.");
        } else {
            Table t = new Table("NODE", "QUEUES", "STARTED", "RUNNING", "LONGEST").right(3);
            for (NodeInfo n : nodes) {
                t.row(n.workerId(), n.queues(), n.startedAt(), n.running().size(),
                        n.running().stream().map(NodeInfo.RunningJob::runningFor).max(Duration::compareTo)
                                .map(NodesCommand::human).orElse("-"));
            }
            t.print(out, Table.terminalWidth());
            for (NodeInfo n : nodes) {
                for (NodeInfo.RunningJob r : n.running()) {
                    out.printf("  %s runs job %d (%s on %s) for %s%n", Table.clean(n.workerId()), r.id(),
                            Table.clean(r.kind()), r.queue(), human(r.runningFor()));
                }
            }
        }
        return ExitCode.OK;
    }

    private static String human(Duration d) {
        long s = d.toSeconds();
        return s < 60 ? s + "s" : s < 3600 ? (s / 60) + "m" + (s % 60) + "s" : (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }
}
