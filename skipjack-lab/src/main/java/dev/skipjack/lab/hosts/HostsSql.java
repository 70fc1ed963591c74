package dev.skipjack.lab.hosts;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The hosts command's own SQL (PostgreSQL only), one statement per resource file next to this
 * class: {@code {{jobs}}} is the run's jobs table, {@code {{leader}}} the leader table beside it,
 * and {@code {{audit_executions}}} the execution audit, all already validated and quoted by their
 * owners (Skipjack and the audit).
 */
final class HostsSql {

    private final String jobsTable;
    private final String executionsTable;

    HostsSql(String jobsTable, String executionsTable) {
        this.jobsTable = jobsTable;
        this.executionsTable = executionsTable;
    }

    /** The leader table: the jobs table's quoted name with {@code leader} for {@code jobs} (same schema, same prefix). */
    private String leaderTable() {
        if (!jobsTable.endsWith("jobs\"")) {
            throw new IllegalStateException("unexpected jobs table name " + jobsTable);
        }
        return jobsTable.substring(0, jobsTable.length() - "jobs\"".length()) + "leader\"";
    }

    String get(String name) {
        try (InputStream in = HostsSql.class.getResourceAsStream(name + ".sql")) {
            if (in == null) {
                throw new IllegalStateException("missing SQL resource dev/skipjack/lab/hosts/" + name + ".sql");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("{{jobs}}", jobsTable)
                    .replace("{{leader}}", leaderTable())
                    .replace("{{audit_executions}}", executionsTable);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
