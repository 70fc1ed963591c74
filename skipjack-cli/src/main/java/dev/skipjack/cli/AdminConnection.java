package dev.skipjack.cli;

import dev.skipjack.Skipjack;
import dev.skipjack.SkipjackAdmin;
import dev.skipjack.SkipjackException;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;

/**
 * The database an operator command works on. These commands need a real database: an embedded
 * one would be empty and thrown away. Says which database it uses on stderr, so stdout stays
 * clean for {@code --json}.
 */
final class AdminConnection implements AutoCloseable {

    static final String DEFAULT_SCHEMA = DatabaseOptions.POSTGRES_DEFAULT_SCHEMA;

    private final DatabaseConnection connection;
    private final Skipjack client;
    private final String displayName;

    private AdminConnection(DatabaseConnection connection, Skipjack client, String displayName) {
        this.connection = connection;
        this.client = client;
        this.displayName = displayName;
    }

    /** The database, for operators: its URL with any password hidden, and the user. */
    String displayName() {
        return displayName;
    }

    /** Opens the pool and builds a client (no queues, no kinds) on the schema {@code options} name. */
    static AdminConnection open(CommandLine commandLine, DatabaseOptions options) {
        if (options.url().isEmpty()) {
            throw new CommandLine.ParameterException(commandLine, commandLine.getCommandName()
                    + " needs a database: give --url or set SKIPJACK_DATABASE_URL");
        }
        return open(commandLine, options.url().get(), options.schemaOr(DEFAULT_SCHEMA));
    }

    /** As {@link #open(CommandLine, DatabaseOptions)}, on {@code url} and {@code schema} (another shard). */
    static AdminConnection open(CommandLine commandLine, DatabaseUrl url, String schema) {
        PrintWriter err = commandLine.getErr();
        DatabaseConnection connection = DatabaseConnection.open(Optional.of(url), 4, new PrintWriter(java.io.Writer.nullWriter()));
        try {
            Skipjack client = Skipjack.builder(connection.dataSource()).schema(schema).build();
            requireTables(client, schema);
            return new AdminConnection(connection, client, url.displayName());
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        } finally {
            err.flush();
        }
    }

    /**
     * Says where Skipjack's tables are when {@code schema} has none, instead of letting the command
     * fail with the database's "relation ... does not exist" (e.g. {@code jobs list} after
     * {@code demo} made its tables in another schema).
     */
    private static void requireTables(Skipjack client, String schema) {
        List<String> found;
        try {
            found = client.admin().schemasWithTables();
        } catch (SkipjackException e) {
            return; // The catalog cannot be read here: the command's own error will say more.
        }
        if (found.contains(schema)) {
            return;
        }
        if (found.isEmpty()) {
            throw new CliException("no Skipjack tables in this database (looked for " + client.jobsTable()
                    + " in every schema): run skipjack migrate --schema " + schema + " first");
        }
        throw new CliException("no Skipjack tables in schema " + schema + "; this database has them in schema"
                + (found.size() > 1 ? "s " : " ") + String.join(", ", found.subList(0, Math.min(found.size(), 20)))
                + (found.size() > 20 ? " and " + (found.size() - 20) + " more" : "")
                + ": add --schema " + found.get(0));
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
