package dev.skipjack.internal.sql;

import dev.skipjack.DatabaseClock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A dialect's statements, one per resource file under {@code dev/skipjack/sql/<dialect>/}, rendered
 * for one set of {@link TableNames} and one {@link DatabaseClock}. A statement every dialect runs
 * word for word lives once, under {@code dev/skipjack/sql/common/}; a dialect's own file of the
 * same name comes first. Templates name time as
 * {@code {{now}}} (the transaction's start), {@code {{statement_now}}} (the statement's) and
 * {@code {{evaluation_now}}} (the instant the expression is evaluated, for a claim's start and an
 * operator's end of a job), never with a database function, so that a test can move the clock every statement reads.
 */
public final class SqlStatements {

    /** What a literal filled into a template may be: built by Skipjack from validated parts only. */
    private static final Pattern SAFE_LITERAL = Pattern.compile("[A-Za-z0-9_.:\\-]{1,200}");

    private final Dialect dialect;
    private final TableNames names;
    private final DatabaseClock clock;
    /** Templates with table names filled in; time is filled in per call, as the clock may move. */
    private final Map<String, String> templates = new ConcurrentHashMap<>();
    /** Fully rendered statements for the unshifted clock, the production case. */
    private final Map<String, String> unshifted = new ConcurrentHashMap<>();

    SqlStatements(Dialect dialect, TableNames names, DatabaseClock clock) {
        this.dialect = dialect;
        this.names = names;
        this.clock = clock;
    }

    public Dialect dialect() {
        return dialect;
    }

    public TableNames names() {
        return names;
    }

    /**
     * The statement in {@code sql/<dialect>/<name>.sql} (else {@code sql/common/<name>.sql}), with
     * names and the clock's current time.
     */
    public String get(String name) {
        long offset = clock.offsetMicros();
        if (offset == 0) {
            return unshifted.computeIfAbsent(name, n -> withTime(template(n), 0));
        }
        return withTime(template(name), offset);
    }

    /**
     * The statement {@code name} with {@code {{placeholder}}} replaced by {@code literal}, for the
     * few commands that take no bind parameter where a value is needed (a channel, a prepared
     * transaction's id). The literal must be Skipjack's own, built from validated identifiers.
     */
    public String get(String name, String placeholder, String literal) {
        if (literal == null || !SAFE_LITERAL.matcher(literal).matches()) {
            throw new IllegalArgumentException("not a safe SQL literal for {{" + placeholder + "}}: " + literal);
        }
        return get(name).replace("{{" + placeholder + "}}", literal);
    }

    /** A migration script of this dialect, rendered for these names. */
    public String migration(int version, String migrationName) {
        return names.render(readResource(dialect.migrationResource(version, migrationName)));
    }

    private String template(String name) {
        return templates.computeIfAbsent(name, n -> {
            String own = "sql/" + dialect.id() + "/" + n + ".sql";
            return names.render(readResource(resourceExists(own) ? own : "sql/common/" + n + ".sql"));
        });
    }

    private static boolean resourceExists(String path) {
        return SqlStatements.class.getResource("/dev/skipjack/" + path) != null;
    }

    private String withTime(String template, long offsetMicros) {
        return template
                .replace("{{now}}", dialect.transactionTime(offsetMicros))
                .replace("{{statement_now}}", dialect.statementTime(offsetMicros))
                .replace("{{evaluation_now}}", dialect.evaluationTime(offsetMicros));
    }

    /** Reads a resource under {@code dev/skipjack/} as UTF-8 text. */
    static String readResource(String path) {
        String full = "/dev/skipjack/" + path;
        try (InputStream in = SqlStatements.class.getResourceAsStream(full)) {
            if (in == null) {
                throw new IllegalStateException("missing SQL resource " + full);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read SQL resource " + full, e);
        }
    }
}
