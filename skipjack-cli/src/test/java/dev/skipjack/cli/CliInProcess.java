package dev.skipjack.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/** Runs the CLI in the test's JVM as a script would run it, capturing what it prints. */
final class CliInProcess {

    private CliInProcess() {
    }

    /** Runs {@code skipjack <args>}; what it prints lands in {@code out} and {@code err}. Returns the exit code. */
    static int execute(StringWriter out, StringWriter err, List<String> args) {
        return execute(SkipjackCli.newCommandLine(), out, err, args);
    }

    /** The same with a command line the test built itself (a command given other collaborators). */
    static int execute(CommandLine commandLine, StringWriter out, StringWriter err, List<String> args) {
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args.toArray(String[]::new));
    }
}
