package dev.skipjack.testing.audit;

import dev.skipjack.internal.sql.TableNames;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The audit's SQL, one statement per resource file under {@code dev/skipjack/testing/sql/<dialect>/}
 * in this jar, rendered for one set of {@link TableNames}: the core's placeholders by
 * {@link TableNames#render}, the audit's own tables here. The audit is not part of Skipjack's
 * schema, so its SQL does not live in (or load through) the core; TableNames is the only core
 * internal it relies on, because the audit must find the jobs table exactly where Skipjack puts it.
 */
final class AuditSql {

    private final String dialect;
    private final TableNames names;
    private final Map<String, String> rendered = new ConcurrentHashMap<>();

    AuditSql(String dialect, TableNames names) {
        this.dialect = dialect;
        this.names = names;
    }

    TableNames names() {
        return names;
    }

    /** The rendered statement in {@code dev/skipjack/testing/sql/<dialect>/<name>.sql}. */
    String get(String name) {
        return rendered.computeIfAbsent(name, n -> names.render(read("sql/" + dialect + "/" + n + ".sql"))
                .replace("{{audit_executions}}", names.qualified("audit_executions"))
                .replace("{{audit_faults}}", names.qualified("audit_faults")));
    }

    private static String read(String path) {
        String full = "/dev/skipjack/testing/" + path;
        try (InputStream in = AuditSql.class.getResourceAsStream(full)) {
            if (in == null) {
                throw new IllegalStateException("missing SQL resource " + full);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read SQL resource " + full, e);
        }
    }
}
