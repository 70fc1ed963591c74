package dev.skipjack.internal.sql;

import dev.skipjack.InvalidIdentifierException;

import java.util.regex.Pattern;

/**
 * The schema and table prefix Skipjack's tables live under. Both are validated against a strict
 * identifier pattern and then quoted (double quotes, or the dialect's quote character), so no
 * user text reaches SQL in any other form.
 */
public final class TableNames {

    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,40}");
    private static final Pattern PREFIX = Pattern.compile("([a-z_][a-z0-9_]{0,20})?");

    private final String schema;
    private final String prefix;
    private final char quote;

    public TableNames(String schema, String prefix) {
        this(schema, prefix, '"');
    }

    private TableNames(String schema, String prefix, char quote) {
        if (schema == null || !SCHEMA.matcher(schema).matches()) {
            throw new InvalidIdentifierException("schema", "invalid schema name " + shown(schema)
                    + ": use 1-41 of a-z, 0-9 and '_', not starting with a digit");
        }
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new InvalidIdentifierException("tablePrefix", "invalid table prefix " + shown(prefix)
                    + ": use 0-21 of a-z, 0-9 and '_', not starting with a digit");
        }
        this.schema = schema;
        this.prefix = prefix;
        this.quote = quote;
    }

    /** The same names, quoted with {@code quote} (a backtick on the MySQL family). */
    public TableNames quotedWith(char quote) {
        if (quote != '"' && quote != '`') {
            throw new IllegalArgumentException("not an identifier quote: " + quote);
        }
        return new TableNames(schema, prefix, quote);
    }

    public String schema() {
        return schema;
    }

    public String prefix() {
        return prefix;
    }

    /** The quoted schema, e.g. {@code "public"}. */
    public String quotedSchema() {
        return quote + schema + quote;
    }

    /** The quoted, schema-qualified name of a Skipjack table, e.g. {@code "public"."skipjack_jobs"}. */
    public String qualified(String table) {
        return quotedSchema() + "." + quote + prefix + table + quote;
    }

    /** Replaces the placeholders of a SQL template with these names. */
    public String render(String template) {
        return template
                .replace("{{jobs}}", qualified("jobs"))
                .replace("{{queues}}", qualified("queues"))
                .replace("{{cron_schedules}}", qualified("cron_schedules"))
                .replace("{{cron_ticks}}", qualified("cron_ticks"))
                .replace("{{nodes}}", qualified("nodes"))
                .replace("{{workflows}}", qualified("workflows"))
                .replace("{{job_dependencies}}", qualified("job_dependencies"))
                .replace("{{concurrency_keys}}", qualified("concurrency_keys"))
                .replace("{{job_logs}}", qualified("job_logs"))
                .replace("{{job_progress}}", qualified("job_progress"))
                .replace("{{migrations}}", qualified("schema_migrations"))
                .replace("{{schema}}", quotedSchema())
                .replace("{{prefix}}", prefix);
    }

    private static String shown(String value) {
        return value == null ? "null" : "'" + (value.length() > 60 ? value.substring(0, 60) + "..." : value) + "'";
    }
}
