package dev.skipjack.cli;

import picocli.CommandLine.Option;

import java.util.Optional;

/** The options every command that talks to a database shares. */
public final class DatabaseOptions {

    @Option(names = "--url", paramLabel = "URL", defaultValue = "${env:SKIPJACK_DATABASE_URL}",
            converter = DatabaseUrl.Converter.class,
            description = "Database to use: jdbc:postgresql://host:port/db?user=..., "
                    + "postgres://user:password@host:port/db or jdbc:sqlite:/path/file.db. Default: $SKIPJACK_DATABASE_URL.")
    private DatabaseUrl url;

    @Option(names = "--schema", paramLabel = "SCHEMA",
            description = "Schema of Skipjack's tables (each command names its default).")
    private String schema;

    /** The database the user named, if any. */
    public Optional<DatabaseUrl> url() {
        return Optional.ofNullable(url);
    }

    /** The schema the user asked for, or the command's default ({@code main} on SQLite, which has no schemas). */
    public String schemaOr(String commandDefault) {
        return schemaFor(url, commandDefault);
    }

    /** As {@link #schemaOr(String)} for the database a command ended up on ({@code used}). */
    public String schemaFor(DatabaseUrl used, String commandDefault) {
        if (schema != null) {
            return schema;
        }
        return used != null && used.isSqlite() ? "main" : commandDefault;
    }
}
