package dev.skipjack;

import java.util.List;
import java.util.Locale;

/**
 * One of Skipjack's numbered migrations as plain SQL, for teams that apply schema changes with
 * Flyway, Liquibase or their own tooling instead of {@link Skipjack#migrate()}: see
 * {@link Skipjack#migrationScripts(Backend, String, String)} and {@code skipjack migrate --export-dir}.
 *
 * <p>Each script ends by recording its version in Skipjack's own migrations table, exactly as
 * {@code migrate()} does, so a schema built from the scripts is one {@code migrate()} recognises:
 * calling it afterwards (or switching back to it) applies only what is missing. The first script
 * also creates the schema (on MySQL and MariaDB: the database) when it does not exist.
 *
 * @param version    the migration's number; numbers only grow, with gaps (there is no 2 or 8)
 * @param name       what it adds, lower case with underscores, e.g. {@code unique}
 * @param statements its statements in order, each runnable on its own over JDBC (on PostgreSQL
 *                   the migration's body is one multi-statement string, which the driver runs as one)
 */
public record MigrationScript(int version, String name, List<String> statements) {

    public MigrationScript {
        statements = List.copyOf(statements);
    }

    /** The statements as one script, each ended by a semicolon and a line end, as psql or the mysql client reads it. */
    public String sql() {
        StringBuilder out = new StringBuilder();
        out.append("-- Skipjack migration V").append(version).append(" (").append(name).append(")\n");
        for (String statement : statements) {
            String trimmed = statement.strip();
            out.append(trimmed);
            if (!trimmed.endsWith(";")) {
                out.append(';');
            }
            out.append("\n\n");
        }
        return out.toString();
    }

    /**
     * A Flyway versioned-migration file name, {@code V013__skipjack_queue_name_check.sql}: zero-padded
     * so the files also sort by version in a directory listing.
     */
    public String flywayFileName() {
        return String.format(Locale.ROOT, "V%03d__skipjack_%s.sql", version, name);
    }
}
