package dev.skipjack.cli;

import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;
import dev.skipjack.cli.output.JsonOutput;
import dev.skipjack.cli.output.Table;
import dev.skipjack.internal.json.JobJson;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code skipjack queues ...}: list queues with their counts, pause and resume them on every node. */
@Command(name = "queues", mixinStandardHelpOptions = true,
        description = "Lists queues; pauses and resumes them on every node.",
        subcommands = {QueuesCommand.ListQueues.class, QueuesCommand.Pause.class, QueuesCommand.Resume.class})
public final class QueuesCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The per-queue table {@code queues list} and {@code stats} print. */
    static Table table(List<QueueInfo> queues) {
        Table t = new Table("QUEUE", "STATUS", "SCHEDULED", "AVAILABLE", "RUNNING", "RETRYABLE", "COMPLETED", "DISCARDED",
                "CANCELLED", "SERVED BY").right(2, 3, 4, 5, 6, 7, 8);
        for (QueueInfo q : queues) {
            t.row(q.name(), q.paused() ? "paused" : "running", n(q, JobState.SCHEDULED), n(q, JobState.AVAILABLE),
                    n(q, JobState.RUNNING), n(q, JobState.RETRYABLE), n(q, JobState.COMPLETED), n(q, JobState.DISCARDED),
                    n(q, JobState.CANCELLED), q.served() ? String.join(", ", q.servedBy())
                            : q.count(JobState.AVAILABLE) > 0 ? "no node (jobs wait)" : "-");
        }
        return t;
    }

    private static String n(QueueInfo q, JobState s) {
        return String.format("%,d", q.count(s));
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = {"Queues with job counts per state and whether they are paused.",
            "With --shard, summed over the shards (paused when paused on any)."})
    static final class ListQueues extends ReadCommand {

        @Override
        int print(ShardedConnection db, PrintWriter out) {
            List<QueueInfo> queues = db.admin().queues();
            if (json) {
                JsonOutput.print(out, JobJson.queues(queues));
            } else if (queues.isEmpty()) {
                out.println("No queues yet: no jobs have been enqueued.");
            } else {
                table(queues).print(out, Table.terminalWidth());
            }
            return ExitCode.OK;
        }
    }

    abstract static class Toggle implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        DatabaseOptions database;
        @Mixin
        ShardOptions shards;
        @Parameters(paramLabel = "QUEUE", description = "The queue name.")
        String queue;

        abstract void apply(dev.skipjack.ShardedAdmin admin);

        abstract String done();

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            String where;
            try (ShardedConnection db = ShardedConnection.open(cl, database, shards)) {
                JobsCommand.usage(cl, () -> {
                    apply(db.admin());
                    return null;
                });
                where = db.sharded() ? " (on all " + db.admin().shardNames().size() + " shards)" : "";
            }
            cl.getOut().println("Queue " + queue + " " + done() + where + ".");
            cl.getOut().flush();
            return ExitCode.OK;
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true,
            description = {"Pauses a queue on every node within about a second; running jobs finish,", "enqueueing still works."})
    static final class Pause extends Toggle {
        @Override
        void apply(dev.skipjack.ShardedAdmin admin) {
            admin.pause(queue);
        }

        @Override
        String done() {
            return "paused on every node (takes effect within about a second)";
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resumes a paused queue on every node.")
    static final class Resume extends Toggle {
        @Override
        void apply(dev.skipjack.ShardedAdmin admin) {
            admin.resume(queue);
        }

        @Override
        String done() {
            return "resumed";
        }
    }
}
