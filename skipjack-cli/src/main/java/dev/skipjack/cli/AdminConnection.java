package dev.skipjack.cli;

import dev.skipjack.Skipjack;
import dev.skipjack.SkipjackAdmin;
import picocli.CommandLine;

import java.io.PrintWriter;

/**
 * The database an operator command works on. These commands need a real database: an embedded
 * one would be empty and thrown away. Says which database it uses on stderr, so stdout stays
 * clean for {@code --json}.
 */
final class AdminConnection implements AutoCloseable {

    static final String DEFAULT_SCHEMA = "public";

    private final DatabaseConnection connection;
    private final Skipjack client;

    private AdminConnection(DatabaseConnection connection, Skipjack client) {
        this.connection = connection;
        this.client = client;
    }

    static AdminConnection open(CommandLine commandLine, DatabaseOptions options) {
        return open(commandLine, options, Skipjack.Builder::build);
    }

    /** Opens the pool and builds a client with {@code build} on a builder already set to the schema. */
    static AdminConnection open(CommandLine commandLine, DatabaseOptions options,
                                java.util.function.Function<Skipjack.Builder, Skipjack> build) {
        if (options.url().isEmpty()) {
            throw new CommandLine.ParameterException(commandLine, commandLine.getCommandName()
                    + " needs a database: give --url or set SKIPJACK_DATABASE_URL");
        }
        PrintWriter err = commandLine.getErr();
        DatabaseConnection connection = DatabaseConnection.open(options.url(), 4, new PrintWriter(java.io.Writer.nullWriter()));
        try {
            return new AdminConnection(connection,
                    build.apply(Skipjack.builder(connection.dataSource()).schema(options.schemaOr(DEFAULT_SCHEMA))));
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        } finally {
            err.flush();
        }
    }

    Skipjack client() {
        return client;
    }

    SkipjackAdmin admin() {
        return client.admin();
    }

    javax.sql.DataSource dataSource() {
        return connection.dataSource();
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            connection.close();
        }
    }
}
