package dev.skipjack.lab.failover;

import dev.skipjack.internal.sql.TableNames;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The failover run's own SQL (resource files next to this class, one statement each): on the
 * monitor, on a data node, and on the run's Skipjack tables, {@code {{jobs}}}, {@code {{leader}}} and the
 * audit's tables
 * replaced by the quoted, validated names of {@code names}. PostgreSQL only, as pg_auto_failover is.
 */
final class FailoverStatements {

    private final TableNames names;

    FailoverStatements(TableNames names) {
        this.names = names;
    }

    /** The statement in {@code <name>.sql}, for this run's tables. */
    String get(String name) {
        return load(name).replace("{{jobs}}", names.qualified("jobs")).replace("{{leader}}", names.qualified("leader"))
                .replace("{{audit_executions}}", names.qualified("audit_executions"))
                .replace("{{audit_faults}}", names.qualified("audit_faults"));
    }

    /** A statement that names no Skipjack table (the monitor's, a node's settings). */
    static String load(String name) {
        try (InputStream in = FailoverStatements.class.getResourceAsStream(name + ".sql")) {
            if (in == null) {
                throw new IllegalStateException("missing failover SQL " + name + ".sql");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
