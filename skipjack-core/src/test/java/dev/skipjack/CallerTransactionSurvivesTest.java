package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14: an enqueue on the caller's connection that Skipjack refuses, or that fails in the
 * database, leaves the caller's transaction usable: the caller's own writes before and after it
 * still commit. On PostgreSQL, where a failed statement aborts the transaction, this needs the
 * savepoint; the other backends undo the failed statement alone.
 */
class CallerTransactionSurvivesTest extends EveryBackendTest {

    record Note(String text) {
    }

    private Skipjack client() {
        Skipjack s = client(builder().kind(JobKind.of("note", Note.class)));
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
