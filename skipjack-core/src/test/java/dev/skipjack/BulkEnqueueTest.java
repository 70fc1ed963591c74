package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-6 bulk enqueue: {@code enqueueAll} stores every request as asked, whichever insert statement it
 * takes (one array per column, or the single-array form for batches that differ only in args), and
 * returns the ids in request order; checking args once per type never lets bad args through.
 */
class BulkEnqueueTest extends EveryBackendTest {

    record Args(int n) {
    }

    private Skipjack enqueuer() {
        return client(builder().kind(JobKind.of("bulk", Args.class), KindOptions.defaults().withMaxAttempts(7)));
    }

    private long storedN(long id) {
        return queryLong("SELECT " + backend().jsonInt("args", "n") + " FROM " + jobsTable() + " WHERE id = ?", id);
    }

    @Test
    void uniformBatchLargerThanOneStatementKeepsRequestOrderAndSettings() {
        Skipjack s = enqueuer();
        List<JobRequest> requests = new ArrayList<>();
        int count = 12_345; // three statements' worth
        for (int i = 0; i < count; i++) {
            requests.add(JobRequest.of("bulk", new Args(i), EnqueueOptions.defaults().withQueue("mail").withPriority(9)));
        }
        List<Long> ids = s.enqueueAll(requests);

        assertThat(ids).hasSize(count).doesNotHaveDuplicates();
        for (int i : new int[] {0, 1, 4_999, 5_000, 5_001, 9_999, 10_000, count - 1}) {
            assertThat(storedN(ids.get(i))).as("args of request %d", i).isEqualTo(i);
        }
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE queue = 'mail' AND priority = 9"
                + " AND max_attempts = 7 AND state = 'available' AND kind = 'bulk'")).isEqualTo(count);
        // Ids grow in request order, so FIFO within a priority follows the request list.
        assertThat(ids).isSorted();
    }

    @Test
    void idsThatAreNotConsecutiveComeBackInRequestOrder() {
        // PostgreSQL returns a batch's ids in one row: the first and the count when they are
        // consecutive, else the list. Ids with gaps (another inserter's between) take the list.
        Assumptions.assumeTrue(backend() == TestBackend.POSTGRESQL, "ids aggregated in one row on PostgreSQL only");
        Skipjack s = enqueuer();
        execute("ALTER TABLE " + jobsTable() + " ALTER COLUMN id SET INCREMENT BY 3");
        try {
            List<JobRequest> requests = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                requests.add(JobRequest.of("bulk", new Args(i)));
            }
            List<Long> ids = s.enqueueAll(requests);

            assertThat(ids).hasSize(7).isSorted().doesNotHaveDuplicates();
            for (int i = 0; i < 7; i++) {
                assertThat(storedN(ids.get(i))).as("args of request %d", i).isEqualTo(i);
            }
            assertThat(ids.get(6) - ids.get(0)).isEqualTo(18);
        } finally {
            execute("ALTER TABLE " + jobsTable() + " ALTER COLUMN id SET INCREMENT BY 1");
        }
    }

    @Test
    void sqliteIdsTakenFromTheLastInsertedIdMatchTheirRowsAfterAGap() {
        // SQLite's inserts return no ids: a batch's are its count up to last_insert_rowid(). They
        // must hold when the key sequence has moved past rows that are gone, and for both the
        // uniform statement and the one with a row per option.
        Assumptions.assumeTrue(backend() == TestBackend.SQLITE, "ids from last_insert_rowid() on SQLite only");
        Skipjack s = enqueuer();
        execute("INSERT INTO " + jobsTable() + " (id, queue, kind) VALUES (1000000, 'gone', 'bulk')");
        execute("DELETE FROM " + jobsTable() + " WHERE id = 1000000");
        List<JobRequest> uniform = new ArrayList<>();
        List<JobRequest> mixed = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            uniform.add(JobRequest.of("bulk", new Args(i)));
            mixed.add(JobRequest.of("bulk", new Args(i), EnqueueOptions.defaults().withPriority(i)));
        }
        List<Long> uniformIds = s.enqueueAll(uniform);
        List<Long> mixedIds = s.enqueueAll(mixed);

        assertThat(uniformIds.get(0)).isEqualTo(1_000_001L);
        assertThat(mixedIds.get(0)).isEqualTo(1_000_008L);
        for (int i = 0; i < 7; i++) {
            assertThat(storedN(uniformIds.get(i))).as("args of uniform request %d", i).isEqualTo(i);
            assertThat(storedN(mixedIds.get(i))).as("args of mixed request %d", i).isEqualTo(i);
            assertThat(queryLong("SELECT priority FROM " + jobsTable() + " WHERE id = ?", mixedIds.get(i)))
                    .as("priority of mixed request %d", i).isEqualTo(i);
        }
    }

    @Test
    void mixedBatchStoresEachRowsOwnOptions() {
        Skipjack s = enqueuer();
        List<JobRequest> requests = List.of(
                JobRequest.of("bulk", new Args(0)),
                JobRequest.of("bulk", new Args(1), EnqueueOptions.defaults().withPriority(3)),
                JobRequest.of("bulk", new Args(2), EnqueueOptions.defaults().withDelay(Duration.ofHours(1))),
                JobRequest.of("bulk", new Args(3), EnqueueOptions.defaults().withQueue("other").withMaxAttempts(2)));
        List<Long> ids = s.enqueueAll(requests);

        for (int i = 0; i < ids.size(); i++) {
            assertThat(storedN(ids.get(i))).isEqualTo(i);
        }
        String table = jobsTable();
        assertThat(queryLong("SELECT priority FROM " + table + " WHERE id = ?", ids.get(1))).isEqualTo(3);
        assertThat(queryLong("SELECT count(*) FROM " + table + " WHERE id = ? AND state = 'scheduled'"
                + " AND run_at > " + nowPlus(Duration.ofMinutes(59)), ids.get(2))).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM " + table + " WHERE id = ? AND queue = 'other' AND max_attempts = 2",
                ids.get(3))).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM " + table + " WHERE id = ? AND queue = 'default'"
                + " AND priority = 0 AND max_attempts = 7 AND state = 'available'", ids.get(0))).isEqualTo(1);
    }

    @Test
    void argsOfTheWrongShapeAreRefusedEvenAfterTheTypeReadBackOnce() {
        Skipjack s = enqueuer();
        s.enqueue("bulk", new Args(1)); // the record type has now read back once
        s.enqueue("bulk", new Args(2));

        assertThatThrownBy(() -> s.enqueue("bulk", Map.of("n", "not a number")))
                .isInstanceOf(InvalidArgsException.class);
        assertThatThrownBy(() -> s.enqueue("bulk", Map.of("n", 3, "surprise", true)))
                .isInstanceOf(InvalidArgsException.class);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isEqualTo(2);
    }
}
