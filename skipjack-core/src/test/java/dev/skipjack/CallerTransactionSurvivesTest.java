package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14: an enqueue on the caller's connection that Skipjack refuses, or that fails in the
 * database, leaves the caller's transaction usable: the caller's own writes before and after it
 * still commit. On PostgreSQL, where a failed statement aborts the transaction, this needs the
 * savepoint; the other backends undo the failed statement alone. And a failed enqueue leaves
 * nothing of itself (F-6): a bulk enqueue or a workflow is several statements, whose first ones
 * must not stay in the caller's transaction, nor be committed on a connection in auto-commit,
 * when a later one fails.
 */
class CallerTransactionSurvivesTest extends EveryBackendTest {

    record Note(String text) {
    }

    record Numbered(int n) {
    }

    /** Jobs of kind 'numbered' from this n on break a constraint of the test's own, in the database. */
    private static final int REFUSED_FROM = 5_500;
    /** More than one insert statement's worth (5,000 rows), the refused ones in the second. */
    private static final int BULK = 6_000;

    private Skipjack client() {
        Skipjack s = client(builder().kind(JobKind.of("note", Note.class)).kind(JobKind.of("numbered", Numbered.class)));
        execute("CREATE TABLE " + table("orders") + " (id bigint PRIMARY KEY)");
        return s;
    }

    private void insertOrder(Connection c, long id) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table("orders") + " VALUES (?)")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }

    private long orders() {
        return queryLong("SELECT count(*) FROM " + table("orders"));
    }

    /** A constraint of the test's own that the next job of kind 'note' breaks in the database, after validation. */
    private void allowOneJobPerKind() {
        if (backend == TestBackend.SQLITE) {
            execute("CREATE UNIQUE INDEX " + table("test_one_per_kind") + " ON \"skipjack_jobs\" (kind)");
        } else {
            execute("CREATE UNIQUE INDEX test_one_per_kind ON " + jobsTable() + " (kind)");
        }
    }

    @Test
    void refusedEnqueueLeavesTheCallersWorkToCommit() throws Exception {
        Skipjack s = client();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            assertThatThrownBy(() -> s.enqueue(c, "note", new Note("nul\u0000"))).isInstanceOf(InvalidArgsException.class);
            insertOrder(c, 2);
            long id = s.enqueue(c, "note", new Note("fine"));
            c.commit();
            assertThat(s.find(id)).isPresent();
        }
        assertThat(orders()).isEqualTo(2);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isEqualTo(1);
    }

    @Test
    void enqueueFailingInTheDatabaseLeavesTheCallersWorkToCommit() throws Exception {
        Skipjack s = client();
        allowOneJobPerKind();
        s.enqueue("note", new Note("first"));
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            assertThatThrownBy(() -> s.enqueue(c, "note", new Note("second"))).isInstanceOf(SkipjackException.class);
            insertOrder(c, 2);
            c.commit();
        }
        assertThat(orders()).isEqualTo(2);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isEqualTo(1);
    }

    /** A constraint of the test's own that jobs of kind 'numbered' with n >= {@link #REFUSED_FROM} break. */
    private void refuseLargeNumbers() {
        if (backend == TestBackend.SQLITE) {
            execute("CREATE TRIGGER " + table("test_refuse_large") + " BEFORE INSERT ON \"skipjack_jobs\""
                    + " WHEN NEW.kind = 'numbered' AND " + backend.jsonInt("NEW.args", "n") + " >= " + REFUSED_FROM
                    + " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
        } else {
            execute("ALTER TABLE " + jobsTable() + " ADD CONSTRAINT test_refuse_large CHECK (kind <> 'numbered' OR "
                    + backend.jsonInt("args", "n") + " < " + REFUSED_FROM + ")");
        }
    }

    private static List<JobRequest> numbered(int count) {
        List<JobRequest> requests = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            requests.add(JobRequest.of("numbered", new Numbered(i)));
        }
        return requests;
    }

    private long numberedJobs() {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE kind = 'numbered'");
    }

    @Test
    void bulkEnqueueFailingInItsSecondStatementLeavesNothingInTheCallersTransaction() throws Exception {
        Skipjack s = client();
        refuseLargeNumbers();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            assertThatThrownBy(() -> s.enqueueAll(c, numbered(BULK))).isInstanceOf(SkipjackException.class);
            insertOrder(c, 2);
            c.commit();
        }
        assertThat(orders()).isEqualTo(2);
        assertThat(numberedJobs()).as("jobs of the failed bulk enqueue").isZero();
    }

    @Test
    void bulkEnqueueFailingInItsSecondStatementCommitsNothingInAutoCommit() throws Exception {
        Skipjack s = client();
        refuseLargeNumbers();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> s.enqueueAll(c, numbered(BULK))).isInstanceOf(SkipjackException.class);
            assertThat(c.getAutoCommit()).as("the caller's connection left in auto-commit").isTrue();
            List<Long> ids = s.enqueueAll(c, numbered(REFUSED_FROM));
            assertThat(ids).hasSize(REFUSED_FROM);
        }
        assertThat(numberedJobs()).as("only the second, successful call's jobs").isEqualTo(REFUSED_FROM);
    }

    @Test
    void workflowFailingInTheDatabaseLeavesTheCallersWorkToCommitAndNothingOfItself() throws Exception {
        Skipjack s = client();
        refuseLargeNumbers();
        Workflow refused = Workflow.named("refused")
                .add("first", JobRequest.of("numbered", new Numbered(1)))
                .add("second", JobRequest.of("numbered", new Numbered(REFUSED_FROM)), Workflow.dependsOn("first"));
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            assertThatThrownBy(() -> s.enqueueWorkflow(c, refused)).isInstanceOf(SkipjackException.class);
            insertOrder(c, 2);
            c.commit();
        }
        assertThat(orders()).isEqualTo(2);
        assertThat(numberedJobs()).as("jobs of the failed workflow").isZero();
    }

    @Test
    void successfulEnqueueStillRollsBackWithTheCaller() throws Exception {
        Skipjack s = client();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            s.enqueue(c, "note", new Note("kept only if the caller commits"));
            c.rollback();
        }
        assertThat(orders()).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isZero();
    }
}
