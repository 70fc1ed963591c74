package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.StatementLog;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * On SQLite a transaction Skipjack opens on a connection in auto-commit ends by switching
 * auto-commit back on, never through {@code Connection.commit()}: sqlite-jdbc's commit begins the
 * next transaction at once, and with IMMEDIATE transactions (which Skipjack requires) that takes
 * the database's one write lock a second time, queued behind every other writer of the process,
 * for an empty transaction. A transaction that fails ends the same way, without {@code
 * Connection.rollback()}, which begins the next transaction too. The statements' commits and
 * rollbacks are counted on the real connections; what was written must be in the database all the
 * same, and what was rolled back must not.
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

    @Test
    void aFailedTransactionRollsBackWithoutASecondTransaction() {
        logged(); // the schema
        log.clear();
        Dialect sqlite = Dialect.of(Backend.SQLITE);
        SQLException refused = new SQLException("refused by the work");

        assertThatThrownBy(() -> Transactions.inTransaction(log.wrap(dataSource), sqlite, c -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO " + table("skipjack_leader") + " (name, holder, lease_until) VALUES ('r', 'h', 0)");
            }
            throw refused;
        })).isSameAs(refused);

        assertThat(refused.getSuppressed()).as("the rollback did not fail").isEmpty();
        assertThat(log.rollbacks()).isZero();
        assertThat(log.commits()).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + table("skipjack_leader"))).as("the insert rolled back").isZero();
    }

    @Test
    void aTransactionSqliteRolledBackItselfEndsInAutoCommit() throws Exception {
        client(builder()); // the schema
        Dialect sqlite = Dialect.of(Backend.SQLITE);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TEMP TABLE refused (x INTEGER)");
            s.execute("CREATE TEMP TRIGGER refuse BEFORE INSERT ON refused BEGIN SELECT RAISE(ROLLBACK, 'no'); END");
            Transactions.begin(c);
            SQLException failure = null;
            try {
                s.executeUpdate("INSERT INTO refused VALUES (1)"); // RAISE(ROLLBACK) ends the whole transaction
            } catch (SQLException e) {
                failure = e;
            }
            assertThat((Throwable) failure).as("the trigger refused the insert").isNotNull();

            assertThat(Transactions.rollbackToAutoCommit(c, sqlite, failure)).isTrue();

            assertThat(failure.getSuppressed()).isEmpty();
            assertThat(c.getAutoCommit()).isTrue();
            s.executeUpdate("INSERT INTO " + table("skipjack_leader") + " (name, holder, lease_until) VALUES ('r', 'h', 0)");
        }
        assertThat(queryLong("SELECT count(*) FROM " + table("skipjack_leader")))
                .as("the connection's next statement committed by itself").isEqualTo(1);
    }
}
