package dev.skipjack.internal.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loads Skipjack's SQL, one statement per resource file under {@code dev/skipjack/sql/<dialect>/},
 * and renders it for one set of {@link TableNames}. Rendered text is cached per statement name.
 */
public final class SqlStatements {

    private final String dialect;
    private final TableNames names;
    private final Map<String, String> rendered = new ConcurrentHashMap<>();

    public SqlStatements(String dialect, TableNames names) {
        this.dialect = dialect;
        this.names = names;
    }

    public TableNames names() {
        return names;
    }

    /** The rendered statement in {@code sql/<dialect>/<name>.sql}. */
    public String get(String name) {
        return rendered.computeIfAbsent(name, n -> names.render(readResource("sql/" + dialect + "/" + n + ".sql")));
    }

    /** Reads a resource under {@code dev/skipjack/} as UTF-8 text. */
    public static String readResource(String path) {
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
