package dev.skipjack.cli;

import picocli.CommandLine.Option;

import java.util.Optional;

/** The options every command that talks to a database shares. */
public final class DatabaseOptions {

    /** PostgreSQL's default schema; a command defaulting to it works in the URL's database on MariaDB and MySQL. */
    static final String POSTGRES_DEFAULT_SCHEMA = "public";

    @Option(names = "--url", paramLabel = "URL", defaultValue = "${env:SKIPJACK_DATABASE_URL}",
            converter = DatabaseUrl.Converter.class,
            description = "Database to use: jdbc:postgresql://host:port/db?user=..., postgres://user:password@host:port/db, "
                    + "jdbc:mariadb://host:port/db?user=... (or jdbc:mysql:), mariadb://user:password@host:port/db (or mysql://) "
                    + "or jdbc:sqlite:/path/file.db. Default: $SKIPJACK_DATABASE_URL.")
    private DatabaseUrl url;

    @Option(names = "--schema", paramLabel = "SCHEMA",
            description = "Schema of Skipjack's tables (each command names its default).")
    private String schema;

    /** The schema given with --schema, if any. */
    public Optional<String> explicitSchema() {
        return Optional.ofNullable(schema);
    }

    /** The database the user named, if any. */
    public Optional<DatabaseUrl> url() {
        return Optional.ofNullable(url);
    }

    /**
     * The schema the user asked for, or the command's default: {@code main} on SQLite, which has no
     * schemas; on MariaDB and MySQL, where a schema is a database, the URL's database in place of
     * PostgreSQL's {@code public}.
     */
    public String schemaOr(String commandDefault) {
        return schemaFor(url, commandDefault);
    }

    /** As {@link #schemaOr(String)} for the database a command ended up on ({@code used}). */
    public String schemaFor(DatabaseUrl used, String commandDefault) {
        if (schema != null) {
            return schema;
        }
        if (used != null && used.isSqlite()) {
            return "main";
        }
        if (used != null && used.isMySqlFamily() && POSTGRES_DEFAULT_SCHEMA.equals(commandDefault)) {
            return used.mySqlFamilyDatabase().orElseThrow(() -> new CliException("the URL " + used.displayName()
                    + " names no database: name one (jdbc:mariadb://host:port/database) or give --schema"));
        }
        return commandDefault;
    }
}
