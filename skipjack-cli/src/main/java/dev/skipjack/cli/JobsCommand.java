package dev.skipjack.cli;

import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.InvalidJobException;
import dev.skipjack.JobAction;
import dev.skipjack.JobError;
import dev.skipjack.JobInfo;
import dev.skipjack.JobLog;
import dev.skipjack.JobPage;
import dev.skipjack.JobQuery;
import dev.skipjack.ShardedAdmin;
import dev.skipjack.ShardedSkipjack.ShardJobId;
import dev.skipjack.cli.output.JsonOutput;
import dev.skipjack.cli.output.Table;
import dev.skipjack.internal.json.JobJson;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code skipjack jobs ...}: find jobs and act on them, on one database or, with {@code --shard},
 * on several as one ({@link ShardedAdmin}): lists merged over the shards, a job named SHARD:ID
 * acted on on its shard only, filters acted on on every shard.
 */
@Command(name = "jobs", mixinStandardHelpOptions = true,
        description = "Lists, shows, retries, cancels, discards, deletes and snoozes jobs.",
        subcommands = {JobsCommand.List.class, JobsCommand.Show.class, JobsCommand.Retry.class, JobsCommand.Cancel.class,
                JobsCommand.Discard.class, JobsCommand.Delete.class, JobsCommand.Snooze.class})
public final class JobsCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Turns a bad filter, option or kind from the core into a usage error (exit 2) naming the problem. */
    static <T> T usage(CommandLine commandLine, java.util.function.Supplier<T> build) {
        try {
            return build.get();
        } catch (InvalidJobException | InvalidConfigurationException e) {
            throw new CommandLine.ParameterException(commandLine, e.getMessage());
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"Lists jobs, newest first, one page at a time; with --shard, from every shard, each with its shard.",
                    "Example: skipjack jobs list --kind send-email --state discarded --args '{\"userId\": 42}'"})
    static final class List implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        DatabaseOptions database;
        @Mixin
        ShardOptions shards;
        @Mixin
        JobFilterOptions filter;
        @Option(names = {"-n", "--limit"}, defaultValue = "50", description = "Jobs per page (default: ${DEFAULT-VALUE}).")
        int limit;
        @Option(names = "--after", paramLabel = "CURSOR", description = "Continue after this cursor (printed under the previous page).")
        String after;
        @Option(names = "--json", description = "Print JSON for scripts.")
        boolean json;

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            JobQuery query = usage(cl, () -> filter.toQuery().limit(limit));
            PrintWriter out = cl.getOut();
            try (ShardedConnection db = ShardedConnection.open(cl, database, shards)) {
                ShardedAdmin.ShardJobPage page = usage(cl, () -> db.admin().jobs(query, after));
                if (json) {
                    JsonOutput.print(out, db.sharded() ? pageJson(page)
                            : JobJson.page(new JobPage(page.jobs().stream().map(ShardedAdmin.ShardJob::job).toList(),
                            page.nextCursor() == null ? null : Long.valueOf(page.nextCursor()))));
                    return ExitCode.OK;
                }
                Table table = db.sharded()
                        ? new Table("SHARD", "ID", "QUEUE", "KIND", "STATE", "ATTEMPT", "CREATED", "ARGS / LAST ERROR").right(1)
                        : new Table("ID", "QUEUE", "KIND", "STATE", "ATTEMPT", "CREATED", "ARGS / LAST ERROR").right(0);
                for (ShardedAdmin.ShardJob shardJob : page.jobs()) {
                    JobInfo j = shardJob.job();
                    String detail = j.argsJson();
                    if (!j.errors().isEmpty()) {
                        JobError last = j.errors().get(j.errors().size() - 1);
                        detail = detail + "  ! " + last.errorClass() + ": " + last.message();
                    }
                    Object[] row = {j.id(), j.queue(), j.kind(), j.state().dbValue(), j.attempt() + "/" + j.maxAttempts(),
                            ago(j.createdAt()), detail};
                    table.row(db.sharded() ? Table.prepend(shardJob.shard(), row) : row);
                }
                if (table.size() == 0) {
                    out.println("No jobs match.");
                } else {
                    table.print(out, Table.terminalWidth());
                }
                if (page.hasMore()) {
                    out.println("More: add --after " + page.nextCursor());
                }
                out.flush();
                return ExitCode.OK;
            }
        }

        /** A page over shards: each job with its shard, and the composite cursor (a string). */
        private static com.fasterxml.jackson.databind.node.ObjectNode pageJson(ShardedAdmin.ShardJobPage page) {
            var n = JsonOutput.MAPPER.createObjectNode();
            var jobs = n.putArray("jobs");
            page.jobs().forEach(j -> jobs.add(JobJson.job(j.job()).put("shard", j.shard())));
            n.put("nextCursor", page.nextCursor());
            return n;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Shows one job: args, attempts, what its handler reported (progress, log lines) and the"
                    + " error history with stack traces.")
    static final class Show implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        DatabaseOptions database;
        @Mixin
        ShardOptions shards;
        @Parameters(paramLabel = "ID", description = "The job id; SHARD:ID with --shard.")
        String id;
        @Option(names = "--json", description = "Print JSON for scripts.")
        boolean json;

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            PrintWriter out = cl.getOut();
            try (ShardedConnection db = ShardedConnection.open(cl, database, shards)) {
                ShardJobId address = usage(cl, () -> db.admin().address(id));
                var found = db.admin().job(address);
                if (found.isEmpty()) {
                    cl.getErr().println("skipjack jobs show: no job " + id);
                    return ExitCode.NOT_FOUND;
                }
                JobInfo j = found.get().job();
                JobLog log = db.admin().jobLog(address);
                if (json) {
                    var node = JobJson.jobWithErrors(j, log);
                    JsonOutput.print(out, db.sharded() ? node.put("shard", address.shard()) : node);
                    return ExitCode.OK;
                }
                out.printf("Job %s  %s  (queue %s, priority %d)%n", db.admin().format(address), j.kind(), j.queue(), j.priority());
                if (db.sharded()) {
                    out.printf("  shard      %s (%s)%n", address.shard(), db.displayNames().get(address.shard()));
                }
                out.printf("  state      %s%s%n", j.state().dbValue(), j.stopRequested() == null ? ""
                        : " (" + j.stopRequested().dbValue() + " by an operator: ends when its handler has stopped)");
                out.printf("  attempt    %d of %d%n", j.attempt(), j.maxAttempts());
                if (log.progress() != null) {
                    JobLog.Progress p = log.progress();
                    out.printf("  progress   %d%%%s  (attempt %d, at %s)%n", p.percent(),
                            p.message() == null ? "" : " " + Table.clean(p.message()), p.attempt(), p.updatedAt());
                }
                out.printf("  created    %s%n", j.createdAt());
                out.printf("  run at     %s%n", j.runAt());
                if (j.attemptedAt() != null) {
                    out.printf("  attempted  %s by %s%n", j.attemptedAt(), Table.clean(String.valueOf(j.claimedBy())));
                }
                if (j.finishedAt() != null) {
                    out.printf("  finished   %s%n", j.finishedAt());
                }
                if (j.uniqueKey() != null) {
                    out.printf("  unique key %s%n", Table.clean(j.uniqueKey()));
                }
                if (j.concurrencyKey() != null) {
                    // A waiting job outside a workflow waits for a slot of this key (skipjack keys).
                    out.printf("  key        %s%s%n", Table.clean(j.concurrencyKey()),
                            j.state() == dev.skipjack.JobState.WAITING && j.workflowId() == null ? " (waiting for a slot: skipjack keys)" : "");
                }
                if (!j.tags().isEmpty()) {
                    out.printf("  tags       %s%n", Table.clean(String.join(", ", j.tags())));
                }
                if (j.metadataJson() != null && !j.metadataJson().equals("{}")) {
                    out.printf("  metadata   %s%n", Table.clean(j.metadataJson()));
                }
                if (j.workflowId() != null) {
                    out.printf("  workflow   %d, step %s (all its steps: skipjack workflows show %s)%n", j.workflowId(),
                            Table.clean(j.workflowStep()), db.admin().format(new ShardJobId(address.shard(), j.workflowId())));
                }
                out.printf("  args       %s%n", Table.clean(j.argsJson()));
                if (j.outputJson() != null) {
                    out.printf("  output     %s%n", Table.clean(j.outputJson()));
                }
                if (!log.lines().isEmpty()) {
                    out.printf("Log (%d line%s):%n", log.lines().size(), log.lines().size() == 1 ? "" : "s");
                    int attempt = 0;
                    for (JobLog.Line line : log.lines()) {
                        if (line.attempt() != attempt) {
                            attempt = line.attempt();
                            out.printf("  attempt %d%s:%n", attempt, line.number() > 1
                                    ? " (its first " + (line.number() - 1) + " lines dropped)" : "");
                        }
                        out.printf("    %s  %s%n", line.loggedAt(), Table.clean(line.text()));
                    }
                }
                if (j.errors().isEmpty()) {
                    out.println("  no errors");
                } else {
                    out.printf("Errors (%d):%n", j.errors().size());
                    for (JobError e : j.errors()) {
                        out.printf("  attempt %d at %s: %s: %s%n", e.attempt(), e.at(), Table.clean(String.valueOf(e.errorClass())),
                                Table.clean(String.valueOf(e.message())));
                        if (e.stack() != null) {
                            for (String line : e.stack().split("\n")) {
                                out.println("      " + Table.clean(line));
                            }
                        }
                    }
                }
                out.flush();
                return ExitCode.OK;
            }
        }
    }

    /** The shared shape of retry, cancel, discard, delete and snooze: ids, or a filter. */
    abstract static class Action implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        DatabaseOptions database;
        @Mixin
        ShardOptions shards;
        @Mixin
        JobFilterOptions filter;
        @Parameters(paramLabel = "ID", arity = "0..*", description = "Job ids (SHARD:ID with --shard: acted on on that shard only)."
                + " Without ids, acts on every job the filter options match (on every shard).")
        java.util.List<String> ids = new ArrayList<>();
        @Option(names = "--all", description = "With no filter options: act on every job (required as a safeguard).")
        boolean all;
        @Option(names = "--json", description = "Print {\"changed\": N} for scripts.")
        boolean json;

        abstract String verb();

        abstract boolean one(ShardedAdmin admin, ShardJobId id);

        abstract long many(ShardedAdmin admin, JobQuery query, java.util.function.LongConsumer progress);

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            if (!ids.isEmpty() && (filter.any() || all)) {
                throw new CommandLine.ParameterException(cl, "give job ids or filter options, not both");
            }
            if (ids.isEmpty() && !filter.any() && !all) {
                throw new CommandLine.ParameterException(cl, "give job ids, filter options (--queue, --kind, --state,"
                        + " --args, --since ...), or --all to " + verb() + " every job");
            }
            JobQuery query = ids.isEmpty() ? usage(cl, filter::toQuery) : null;
            PrintWriter out = cl.getOut();
            PrintWriter err = cl.getErr();
            long changed = 0;
            try (ShardedConnection db = ShardedConnection.open(cl, database, shards)) {
                ShardedAdmin admin = db.admin();
                if (query == null) {
                    // Every address checked before anything changes: a typo in the last id changes nothing.
                    java.util.List<ShardJobId> addresses = ids.stream().map(id -> usage(cl, () -> admin.address(id))).toList();
                    for (ShardJobId address : addresses) {
                        String id = admin.format(address);
                        boolean ok = one(admin, address);
                        changed += ok ? 1 : 0;
                        if (!json) {
                            out.println(ok ? verb(true) + " job " + id
                                    : "job " + id + " not " + verb(true) + " (no such job, or its state does not allow it)");
                        }
                    }
                } else {
                    long startNanos = System.nanoTime();
                    changed = many(admin, query, n -> {
                        err.printf("\r%s: %,d jobs so far (%.1f s)", verb(), n, (System.nanoTime() - startNanos) / 1e9);
                        err.flush();
                    });
                    err.println();
                    if (!json) {
                        out.printf(Locale.ROOT, "%s %,d jobs%n", capitalized(verb(true)), changed);
                    }
                }
            }
            if (json) {
                JsonOutput.print(out, JsonOutput.MAPPER.createObjectNode().put("changed", changed));
            }
            out.flush();
            return changed == 0 ? ExitCode.NOTHING_CHANGED : ExitCode.OK;
        }

        String verb(boolean past) {
            String v = verb();
            if (!past) {
                return v;
            }
            return switch (v) {
                case "retry" -> "retried";
                case "cancel" -> "cancelled";
                case "discard" -> "discarded";
                default -> v + "d"; // delete, snooze
            };
        }

        private static String capitalized(String s) {
            return Character.toUpperCase(s.charAt(0)) + s.substring(1);
        }
    }

    /** Actions that map to one {@link JobAction}. */
    abstract static class SimpleAction extends Action {
        abstract JobAction action();

        @Override
        boolean one(ShardedAdmin admin, ShardJobId id) {
            return admin.act(action(), id);
        }

        @Override
        long many(ShardedAdmin admin, JobQuery query, java.util.function.LongConsumer progress) {
            return admin.act(action(), query, progress);
        }

        @Override
        String verb() {
            return action().name().toLowerCase(Locale.ROOT);
        }
    }

    @Command(name = "retry", mixinStandardHelpOptions = true,
            description = {"Makes jobs available to run now (not running or available ones);"
                    + " a job out of attempts gets one more.", "Exit code 4 when nothing changed."})
    static final class Retry extends SimpleAction {
        @Override
        JobAction action() {
            return JobAction.RETRY;
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = {"Cancels jobs that have not finished. A running job is asked to stop: its handler is"
                    + " interrupted at its node's next heartbeat and the job ends cancelled when it returns"
                    + " (completed if it completed its work); until then it keeps its keys (jobs show: state).",
                    "Exit code 4 when nothing changed."})
    static final class Cancel extends SimpleAction {
        @Override
        JobAction action() {
            return JobAction.CANCEL;
        }
    }

    @Command(name = "discard", mixinStandardHelpOptions = true,
            description = {"Discards jobs that have not finished; a running job is asked to stop, as by cancel.",
                    "Exit code 4 when nothing changed."})
    static final class Discard extends SimpleAction {
        @Override
        JobAction action() {
            return JobAction.DISCARD;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = {"Deletes jobs that are not running.", "Exit code 4 when nothing changed."})
    static final class Delete extends SimpleAction {
        @Override
        JobAction action() {
            return JobAction.DELETE;
        }
    }

    @Command(name = "snooze", mixinStandardHelpOptions = true,
            description = {"Pushes waiting jobs (scheduled, available, retryable) to run later.", "Exit code 4 when nothing changed."})
    static final class Snooze extends Action {
        @Option(names = "--for", required = true, paramLabel = "DURATION", converter = DurationConverter.class,
                description = "How long from now, e.g. 30m.")
        Duration delay;

        @Override
        String verb() {
            return "snooze";
        }

        @Override
        boolean one(ShardedAdmin admin, ShardJobId id) {
            return usage(spec.commandLine(), () -> admin.snooze(id, delay));
        }

        @Override
        long many(ShardedAdmin admin, JobQuery query, java.util.function.LongConsumer progress) {
            return usage(spec.commandLine(), () -> admin.snooze(query, delay, progress));
        }
    }

    /** "3s ago", "5m ago", "2h ago", "4d ago": short enough for a table column. */
    static String ago(Instant t) {
        if (t == null) {
            return "";
        }
        long s = Math.max(0, ChronoUnit.SECONDS.between(t, Instant.now()));
        if (s < 120) {
            return s + "s ago";
        }
        if (s < 7_200) {
            return s / 60 + "m ago";
        }
        if (s < 172_800) {
            return s / 3_600 + "h ago";
        }
        return s / 86_400 + "d ago";
    }
}
