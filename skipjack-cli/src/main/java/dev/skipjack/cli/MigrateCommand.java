package dev.skipjack.cli;

import dev.skipjack.Skipjack;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code skipjack migrate}: creates or upgrades Skipjack's tables, or prints their SQL. */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Creates or upgrades Skipjack's tables in schema 'public' (or --schema).",
                "With --print-sql, prints the schema SQL instead, for Flyway, Liquibase or psql."})
public final class MigrateCommand implements Callable<Integer> {

    private static final String DEFAULT_SCHEMA = "public";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private DatabaseOptions database;

    @Option(names = "--print-sql", description = "Print the SQL instead of applying it; needs no database.")
    private boolean printSql;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        String schema = database.schemaOr(DEFAULT_SCHEMA);
        if (printSql) {
            out.print(Skipjack.migrationSql(schema, "skipjack_"));
            out.flush();
            return 0;
        }
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
}
