package dev.skipjack.cli;

import dev.skipjack.Backend;
import dev.skipjack.Skipjack;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code skipjack migrate}: creates or upgrades Skipjack's tables, or prints their SQL. */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Creates or upgrades Skipjack's tables in schema 'public' (or --schema).",
                "On MariaDB and MySQL, in the URL's database (or --schema, a database there).",
                "With --print-sql, prints the schema SQL instead, for Flyway, Liquibase or psql:",
                "the --url's dialect, or --dialect postgres|mariadb|mysql|sqlite without a URL.",
                "With --export-dir DIR, writes one file per migration instead: Flyway versioned",
                "migrations, or with --format liquibase formatted-SQL changelogs and an index."})
public final class MigrateCommand implements Callable<Integer> {

    private static final String DEFAULT_SCHEMA = DatabaseOptions.POSTGRES_DEFAULT_SCHEMA;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private DatabaseOptions database;

    @Option(names = "--print-sql", description = "Print the SQL instead of applying it; needs no database.")
    private boolean printSql;

    @Option(names = "--dialect", paramLabel = "postgres|mariadb|mysql|sqlite",
            description = "With --print-sql or --export-dir: whose SQL (default: the --url's database, else postgres).")
    private String dialect;

    @Option(names = "--export-dir", paramLabel = "DIR",
            description = "Write one SQL file per migration into DIR (created if missing); needs no database.")
    private Path exportDir;

    @Option(names = "--format", paramLabel = "flyway|liquibase", defaultValue = "flyway",
            description = "With --export-dir: flyway (V001__skipjack_jobs.sql, ...) or liquibase"
                    + " (formatted SQL per migration and skipjack-changelog.xml including them in order).")
    private String format;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (printSql && exportDir != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --print-sql or --export-dir, not both");
        }
        if (exportDir != null) {
            Backend backend = printedBackend();
            MigrationExport export = MigrationExport.of(format).orElseThrow(() -> new CommandLine.ParameterException(
                    spec.commandLine(), "unknown --format '" + format + "': use flyway or liquibase"));
            List<Path> written = export.write(
                    Skipjack.migrationScripts(backend, printedSchema(backend), "skipjack_"), exportDir);
            out.println("Wrote " + written.size() + " files for " + backend.productName() + " to " + exportDir + ".");
            return 0;
        }
        if (printSql) {
            Backend backend = printedBackend();
            out.print(Skipjack.migrationSql(backend, printedSchema(backend), "skipjack_"));
            out.flush();
            return 0;
        }
        if (dialect != null) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--dialect goes with --print-sql or --export-dir; migrate detects the database it applies to");
        }
        String schema = database.schemaOr(DEFAULT_SCHEMA);
        if (database.url().isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "migrate needs a database: give --url or set SKIPJACK_DATABASE_URL"
                            + " (an embedded database would be thrown away), or use --print-sql");
        }
        try (DatabaseConnection connection = DatabaseConnection.open(database.url(), 2, out)) {
            List<Integer> applied = Skipjack.builder(connection.dataSource()).schema(schema).build().migrate();
            out.println(applied.isEmpty()
                    ? "Schema " + schema + " is up to date."
                    : "Applied migrations " + applied + " to schema " + schema + ".");
        }
        return 0;
    }

    /** The backend whose SQL --print-sql prints: --dialect, else the --url's, else PostgreSQL. */
    private Backend printedBackend() {
        if (dialect == null) {
            return database.url().map(DatabaseUrl::backend).orElse(Backend.POSTGRESQL);
        }
        return switch (dialect.trim().toLowerCase(Locale.ROOT)) {
            case "postgres", "postgresql" -> Backend.POSTGRESQL;
            case "mariadb" -> Backend.MARIADB;
            case "mysql" -> Backend.MYSQL;
            case "sqlite" -> Backend.SQLITE;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "unknown --dialect '" + dialect + "': use postgres, mariadb, mysql or sqlite");
        };
    }

    /**
     * The schema the printed SQL creates its tables in. Without a URL to take it from, SQLite's is
     * {@code main}, and MariaDB and MySQL need --schema: there it is the database to create.
     */
    private String printedSchema(Backend backend) {
        if (database.url().isPresent() && database.url().get().backend() == backend) {
            return database.schemaOr(DEFAULT_SCHEMA);
        }
        return switch (backend) {
            case SQLITE -> database.explicitSchema().orElse("main");
            case MARIADB, MYSQL -> database.explicitSchema().orElseThrow(() -> new CommandLine.ParameterException(
                    spec.commandLine(), "--print-sql for " + backend.productName() + " needs --schema DATABASE"
                            + " (a schema is a database there) or a --url naming one"));
            case POSTGRESQL -> database.schemaOr(DEFAULT_SCHEMA);
        };
    }
}
