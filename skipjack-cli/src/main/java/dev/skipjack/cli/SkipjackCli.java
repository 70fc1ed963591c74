package dev.skipjack.cli;

import com.zaxxer.hikari.pool.HikariPool;
import dev.skipjack.SkipjackException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.UncheckedIOException;
import java.sql.SQLException;

/** The {@code skipjack} command. Each subcommand is its own class. */
@Command(name = "skipjack", mixinStandardHelpOptions = true, version = "skipjack 0.1.0-SNAPSHOT",
        description = "Skipjack, a durable job queue on PostgreSQL.",
        subcommands = {DemoCommand.class, MigrateCommand.class, EnqueueCommand.class, JobsCommand.class, SchedulesCommand.class, NodesCommand.class,
                KeysCommand.class, WorkflowsCommand.class, QueuesCommand.class, StatsCommand.class, WorkerCommand.class,
                DashboardCommand.class})
public final class SkipjackCli implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /** The command line as {@link #main} runs it: operational failures reported in one line, not a stack trace. */
    public static CommandLine newCommandLine() {
        return new CommandLine(new SkipjackCli()).setExecutionExceptionHandler(SkipjackCli::reportFailure);
    }

    /** {@code skipjack} alone explains itself. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * Failures the user can act on (database unreachable, bad schema name, failed SQL) get their
     * messages; anything else is a bug and keeps its stack trace. Public so that skipjack-lab's
     * commands, which share the CLI's database options, report their failures the same way.
     */
    public static int reportFailure(Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult)
            throws Exception {
        if (!(e instanceof CliException || e instanceof SkipjackException || e instanceof SQLException
                || e instanceof HikariPool.PoolInitializationException || e instanceof UncheckedIOException)) {
            throw e;
        }
        StringBuilder message = new StringBuilder("skipjack " + commandLine.getCommandName() + ": " + e.getMessage());
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && !message.toString().contains(cause.getMessage())) {
                message.append("\n  caused by: ").append(cause.getMessage());
            }
        }
        commandLine.getErr().println(commandLine.getColorScheme().errorText(message.toString()));
        return 1;
    }
}
