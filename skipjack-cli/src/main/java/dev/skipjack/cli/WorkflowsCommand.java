package dev.skipjack.cli;

import dev.skipjack.JobError;
import dev.skipjack.JobInfo;
import dev.skipjack.JobState;
import dev.skipjack.WorkflowInfo;
import dev.skipjack.cli.output.JsonOutput;
import dev.skipjack.cli.output.Table;
import dev.skipjack.internal.json.JobJson;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@code skipjack workflows ...}: workflows (F-14) as a list of jobs with their dependencies and states. */
@Command(name = "workflows", mixinStandardHelpOptions = true,
        description = "Shows workflows: their steps, each step's job and state, and what it depends on.",
        subcommands = {WorkflowsCommand.Show.class})
public final class WorkflowsCommand implements Runnable {

    /** Marks a parent whose end its child has counted (docs/workflows.md, "satisfied"). */
    static final String SATISFIED = "✓";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = {"Shows one workflow: its state, then each step in dependency order (parents first)"
                    + " with its job, the job's state and attempt, the steps it depends on (" + SATISFIED
                    + " = that parent's end has been counted) and, for a discarded or cancelled job, its last error.",
                    "Exit code 3 when there is no such workflow."})
    static final class Show extends ReadCommand {
        @Parameters(paramLabel = "ID", description = "The workflow id (a workflow job's `jobs show` prints it); SHARD:ID with --shard.")
        String id;

        @Override
        int print(ShardedConnection db, PrintWriter out) {
            var address = JobsCommand.usage(spec.commandLine(), () -> db.admin().address(id));
            Optional<WorkflowInfo> found = db.admin().workflow(address);
            if (found.isEmpty()) {
                spec.commandLine().getErr().println("skipjack workflows show: no workflow " + id
                        + " (never enqueued, or finished and deleted by retention)");
                return ExitCode.NOT_FOUND;
            }
            WorkflowInfo w = found.get();
            if (json) {
                var node = JobJson.workflow(w);
                JsonOutput.print(out, db.sharded() ? node.put("shard", address.shard()) : node);
                return ExitCode.OK;
            }
            WorkflowsCommand.print(out, w);
            return ExitCode.OK;
        }
    }

    static void print(PrintWriter out, WorkflowInfo w) {
        out.printf("Workflow %d  %s%n", w.id(), Table.clean(w.name()));
        out.printf("  state      %s%n", w.state().dbValue());
        out.printf("  policy     %s%n", w.policy().dbValue());
        out.printf("  remaining  %d of %d jobs%n", w.remaining(), w.steps().size());
        out.printf("  created    %s%n", w.createdAt());
        out.printf("  finished   %s%n", w.finishedAt() == null ? "-" : w.finishedAt());
        out.println();
        // The steps come in job id order, and a workflow inserts parents before their children
        // (docs/workflows.md), so this is a dependency order.
        Table t = new Table("STEP", "JOB", "STATE", "ATTEMPT", "DEPENDS ON", "LAST ERROR").right(1);
        for (WorkflowInfo.Step s : w.steps()) {
            JobInfo j = s.job();
            t.row(s.name(), j.id(), j.state().dbValue(), j.attempt() + "/" + j.maxAttempts(), dependsOn(s), lastError(j));
        }
        t.print(out, Table.terminalWidth());
        out.println("(" + SATISFIED + " after a parent: its end has been counted for this step)");
    }

    /** "a ✓, b": the parents, each satisfied one marked; "-" for a step without parents. */
    static String dependsOn(WorkflowInfo.Step s) {
        if (s.dependsOn().isEmpty()) {
            return "-";
        }
        List<String> parts = new ArrayList<>();
        for (String p : s.dependsOn()) {
            parts.add(s.satisfied().contains(p) ? p + " " + SATISFIED : p);
        }
        return String.join(", ", parts);
    }

    /** The last error of a job that ended without completing; empty otherwise. */
    static String lastError(JobInfo j) {
        if ((j.state() != JobState.DISCARDED && j.state() != JobState.CANCELLED) || j.errors().isEmpty()) {
            return "";
        }
        JobError last = j.errors().get(j.errors().size() - 1);
        return last.errorClass() + ": " + last.message();
    }
}
