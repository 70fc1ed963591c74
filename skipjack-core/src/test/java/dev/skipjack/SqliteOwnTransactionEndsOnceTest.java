package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.StatementLog;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On SQLite a transaction Skipjack opens on a connection in auto-commit ends by switching
 * auto-commit back on, never through {@code Connection.commit()}: sqlite-jdbc's commit begins the
 * next transaction at once, and with IMMEDIATE transactions (which Skipjack requires) that takes
 * the database's one write lock a second time, queued behind every other writer of the process,
 * for an empty transaction. The statements' commits are counted on the real connections; what was
 * written must be in the database all the same.
 */
class SqliteOwnTransactionEndsOnceTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final JobKind<Args> KIND = JobKind.of("k", Args.class);

    private final StatementLog log = new StatementLog();

    @Override
    protected TestBackend backend() {
        return TestBackend.SQLITE;
    }

    private Skipjack logged() {
        return client(Skipjack.builder(log.wrap(dataSource)).schema(schema).kind(KIND));
    }

    @Test
    void aMigrationBulkEnqueueAndWorkflowCommitWithoutASecondTransaction() {
        Skipjack s = logged();
        List<Long> ids = s.enqueueAll(List.of(JobRequest.of(KIND, new Args(1)), JobRequest.of(KIND, new Args(2))));
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("two")
                .add("a", JobRequest.of(KIND, new Args(3)))
                .add("b", JobRequest.of(KIND, new Args(4)), Workflow.dependsOn("a")));

        assertThat(log.commits()).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isEqualTo(4);
        assertThat(s.admin().job(ids.get(1))).isPresent();
        assertThat(s.admin().workflow(w.id())).isPresent();
    }

    @Test
    void aBulkEnqueueOnTheCallersConnectionInAutoCommitCommitsItWithoutASecondTransaction() throws Exception {
        Skipjack s = logged();
        log.clear();
        try (Connection c = log.wrap(dataSource.getConnection())) {
            s.enqueueAll(c, List.of(JobRequest.of(KIND, new Args(1)), JobRequest.of(KIND, new Args(2))));
            assertThat(c.getAutoCommit()).isTrue();
        }

        assertThat(log.commits()).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isEqualTo(2);
    }
}
