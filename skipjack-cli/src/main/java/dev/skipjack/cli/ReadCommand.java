package dev.skipjack.cli;

import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * A command that reads from the database and prints a table, or JSON with {@code --json}: the
 * connection options, the flag, opening and closing the connection and flushing the output, once
 * for all of them (queues, nodes, keys, schedules, workflows), over {@code --url}'s database and
 * each {@code --shard}'s. Picocli finds the annotated fields
 * of this class in every subclass.
 */
abstract class ReadCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    DatabaseOptions database;
    @Mixin
    ShardOptions shards;
    @Option(names = "--json", description = "Print JSON for scripts.")
    boolean json;

    /** Prints what the command shows on {@code out}; returns the exit code. */
    abstract int print(ShardedConnection db, PrintWriter out) throws Exception;

    @Override
    public final Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        PrintWriter out = cl.getOut();
        try (ShardedConnection db = ShardedConnection.open(cl, database, shards)) {
            int code = print(db, out);
            out.flush();
            return code;
        }
    }
}
