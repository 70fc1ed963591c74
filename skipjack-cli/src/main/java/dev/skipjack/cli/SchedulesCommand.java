package dev.skipjack.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skipjack.CronSchedule;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.Misfire;
import dev.skipjack.ScheduleInfo;
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

/** {@code skipjack schedules ...}: the cron schedules (F-11) every started node enqueues. */
@Command(name = "schedules", mixinStandardHelpOptions = true,
        description = "Lists, adds and removes cron schedules.",
        subcommands = {SchedulesCommand.ListSchedules.class, SchedulesCommand.Add.class, SchedulesCommand.Remove.class})
public final class SchedulesCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Schedules with their expression, zone, next tick and last enqueued tick.")
    static final class ListSchedules extends ReadCommand {

        @Override
        int print(ShardedConnection db, PrintWriter out) {
            java.util.Map<String, List<ScheduleInfo>> perShard = db.admin().schedules();
            if (json) {
                JsonOutput.print(out, JobJson.perShard(perShard, JobJson::schedules, db.sharded()));
            } else if (perShard.values().stream().allMatch(List::isEmpty)) {
                out.println("No cron schedules.");
            } else {
                Table t = db.sharded()
                        ? new Table("SHARD", "NAME", "EXPRESSION", "ZONE", "KIND", "QUEUE", "NEXT TICK", "LAST TICK", "LAST JOB").right(8)
                        : new Table("NAME", "EXPRESSION", "ZONE", "KIND", "QUEUE", "NEXT TICK", "LAST TICK", "LAST JOB").right(7);
                perShard.forEach((shard, schedules) -> {
                    for (ScheduleInfo s : schedules) {
                        Object[] row = {s.name(), s.expression(), s.zone(), s.kind(), s.queue(), s.nextTickAt(),
                                s.lastTickAt() == null ? "-" : s.lastTickAt(), s.lastJobId() == null ? "-" : s.lastJobId()};
                        t.row(db.sharded() ? Table.prepend(shard, row) : row);
                    }
                });
                t.print(out, Table.terminalWidth());
            }
            return ExitCode.OK;
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = {"Adds a cron schedule, or replaces the one of that name if its definition differs.",
                    "Example: skipjack schedules add nightly-report '30 2 * * *' report --args '{\"name\": \"daily\"}' --zone Europe/Paris"})
    static final class Add implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        DatabaseOptions database;
        @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
        String name;
        @Parameters(index = "1", paramLabel = "EXPRESSION",
                description = "Cron expression: 5 fields (minute hour day-of-month month day-of-week) or 6 (second first).")
        String expression;
        @Parameters(index = "2", paramLabel = "KIND", description = "The kind of job each tick enqueues.")
        String kind;
        @Option(names = "--args", defaultValue = "{}", paramLabel = "JSON", description = "The jobs' args as JSON (default: {}).")
        String args;
        @Option(names = "--zone", defaultValue = "UTC", description = "Time zone of the expression (default: ${DEFAULT-VALUE}).")
        String zone;
        @Option(names = {"-q", "--queue"}, defaultValue = "default", description = "Queue (default: ${DEFAULT-VALUE}).")
        String queue;
        @Option(names = "--misfire", defaultValue = "FIRE_ONCE",
                description = "Missed ticks: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
        Misfire misfire;
        @Option(names = "--allow-overlap", description = "Enqueue every tick, even while an earlier tick's job is unfinished.")
        boolean allowOverlap;

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            JsonNode tree;
            try {
                tree = JsonOutput.MAPPER.readTree(args);
            } catch (JsonProcessingException e) {
                throw new CommandLine.ParameterException(cl, "--args is not valid JSON: " + e.getOriginalMessage());
            }
            CronSchedule schedule = JobsCommand.usage(cl, () -> {
                CronSchedule s = CronSchedule.of(name, expression, JobKind.of(kind, JsonNode.class), tree)
                        .inZone(zone).withOptions(EnqueueOptions.defaults().withQueue(queue)).onMisfire(misfire);
                return allowOverlap ? s.allowingOverlap() : s;
            });
            try (AdminConnection db = AdminConnection.open(cl, database)) {
                JobsCommand.usage(cl, () -> {
                    db.client().schedule(schedule);
                    return null;
                });
                ScheduleInfo stored = db.admin().schedules().stream().filter(s -> s.name().equals(name)).findFirst()
                        .orElseThrow();
                cl.getOut().println("Schedule " + name + " enqueues " + kind + " at '" + expression + "' (" + zone
                        + "); next tick " + stored.nextTickAt());
                cl.getOut().flush();
            }
            return ExitCode.OK;
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Removes a cron schedule; its enqueued jobs stay.")
    static final class Remove implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        DatabaseOptions database;
        @Parameters(paramLabel = "NAME", description = "The schedule's name.")
        String name;

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            try (AdminConnection db = AdminConnection.open(cl, database)) {
                if (!db.client().unschedule(name)) {
                    cl.getErr().println("skipjack schedules remove: no schedule " + name);
                    return ExitCode.NOT_FOUND;
                }
            }
            cl.getOut().println("Removed schedule " + name);
            cl.getOut().flush();
            return ExitCode.OK;
        }
    }
}
