package dev.skipjack.audit;

import dev.skipjack.Backend;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.TableNames;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The audit's SQL, one statement per resource file under {@code dev/skipjack/audit/sql/<dialect>/}
 * in this jar (the core's dialect ids: {@code postgres}, {@code mariadb} for the MySQL family,
 * {@code sqlite}), rendered for one set of {@link TableNames} quoted as that dialect quotes: the
 * core's placeholders by {@link TableNames#render}, the audit's own tables here. The audit is not
 * part of Skipjack's schema, so its SQL does not live in (or load through) the core; TableNames and
 * the dialect's id and quote are the only core internals it relies on, because the audit must find
 * the jobs table exactly where Skipjack puts it.
 */
final class AuditSql {

    private final String dialect;
    private final TableNames names;
    private final Map<String, String> rendered = new ConcurrentHashMap<>();

    AuditSql(Backend backend, TableNames names) {
        Dialect d = Dialect.of(backend);
        this.dialect = d.id();
        this.names = names.quotedWith(d.identifierQuote());
    }

    TableNames names() {
        return names;
    }

    /** Whether this dialect has the statement {@code name} (some need fewer statements than others). */
    boolean has(String name) {
        return AuditSql.class.getResource(resource(name)) != null;
    }

    /** The rendered statement in {@code dev/skipjack/audit/sql/<dialect>/<name>.sql}. */
    String get(String name) {
        return rendered.computeIfAbsent(name, n -> names.render(read(resource(n)))
                .replace("{{audit_executions}}", names.qualified("audit_executions"))
                .replace("{{audit_faults}}", names.qualified("audit_faults"))
                .replace("{{audit_connections}}", names.qualified("audit_connections"))
                .replace("{{audit_enqueues}}", names.qualified("audit_enqueues"))
                .replace("{{audit_start}}", names.qualified("audit_start"))
                .replace("{{audit_running}}", names.qualified("audit_running"))
                .replace("{{audit_key_peaks}}", names.qualified("audit_key_peaks")));
    }

    private String resource(String name) {
        return "/dev/skipjack/audit/sql/" + dialect + "/" + name + ".sql";
    }

    private static String read(String full) {
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
