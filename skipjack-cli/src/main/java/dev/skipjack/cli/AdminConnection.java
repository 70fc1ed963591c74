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

    static final String DEFAULT_SCHEMA = DatabaseOptions.POSTGRES_DEFAULT_SCHEMA;

    private final DatabaseConnection connection;
    private final Skipjack client;

    private AdminConnection(DatabaseConnection connection, Skipjack client) {
        this.connection = connection;
        this.client = client;
    }

    /** Opens the pool and builds a client (no queues, no kinds) on the schema {@code options} name. */
    static AdminConnection open(CommandLine commandLine, DatabaseOptions options) {
        if (options.url().isEmpty()) {
            throw new CommandLine.ParameterException(commandLine, commandLine.getCommandName()
                    + " needs a database: give --url or set SKIPJACK_DATABASE_URL");
        }
        PrintWriter err = commandLine.getErr();
        DatabaseConnection connection = DatabaseConnection.open(options.url(), 4, new PrintWriter(java.io.Writer.nullWriter()));
        try {
            return new AdminConnection(connection,
                    Skipjack.builder(connection.dataSource()).schema(options.schemaOr(DEFAULT_SCHEMA)).build());
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
