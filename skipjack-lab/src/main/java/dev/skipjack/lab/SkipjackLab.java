package dev.skipjack.lab;

import dev.skipjack.cli.SkipjackCli;
import dev.skipjack.lab.hosts.HostsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code skipjack-lab} command: Skipjack's own benchmark and fault-injection tools. They are
 * for measuring and proving Skipjack, not for operating it, so they live outside the published
 * {@code skipjack} CLI and are never published.
 */
@Command(name = "skipjack-lab", mixinStandardHelpOptions = true, version = "skipjack-lab 0.1.0-SNAPSHOT",
        description = "Skipjack's lab: benchmarks and chaos runs against an embedded or any PostgreSQL.",
        subcommands = {BenchCommand.class, ChaosCommand.class, HostsCommand.class, FailoverCommand.class})
public final class SkipjackLab implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /** The command line as {@link #main} runs it: failures reported as the {@code skipjack} CLI reports them. */
    public static CommandLine newCommandLine() {
        return new CommandLine(new SkipjackLab()).setExecutionExceptionHandler(SkipjackCli::reportFailure);
    }

    /** {@code skipjack-lab} alone explains itself. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
