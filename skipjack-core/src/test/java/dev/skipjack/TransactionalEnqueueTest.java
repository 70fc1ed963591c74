package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** F-6: a job enqueued on the caller's connection exists if and only if the caller's transaction commits. */
class TransactionalEnqueueTest extends EveryBackendTest {

    record Order(long orderId) {
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private static final Duration WAIT = Duration.ofSeconds(15);

    private long jobCount() {
        return queryLong("SELECT count(*) FROM " + jobsTable());
    }

    private Skipjack declaringClient() {
        return client(builder().kind(JobKind.of("confirm", Order.class)));
    }

    private void createOrdersTable() {
        execute("CREATE TABLE " + table("orders") + " (id bigint PRIMARY KEY)");
    }

    private void insertOrder(Connection c, long id) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table("orders") + " VALUES (?)")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }

    @Test
    void rolledBackTransactionLeavesNoJob() throws Exception {
        Skipjack s = declaringClient();
        createOrdersTable();
        long id;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            id = s.enqueue(c, "confirm", new Order(1));
            // Visible inside the transaction, invisible outside it.
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + jobsTable() + " WHERE id = ?")) {
                ps.setLong(1, id);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getLong(1)).isEqualTo(1);
                }
            }
            assertThat(jobCount()).isZero();
            c.rollback();
        }
        assertThat(jobCount()).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id = ?", id)).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + table("orders"))).isZero();
    }

    @Test
    void committedTransactionLeavesExactlyTheJob() throws Exception {
        Skipjack s = declaringClient();
        createOrdersTable();
        long id;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 7);
            id = s.enqueue(c, "confirm", new Order(7), EnqueueOptions.defaults().withPriority(3));
            assertThat(jobCount()).as("not visible before commit").isZero();
            c.commit();
            assertThat(c.getAutoCommit()).as("Skipjack leaves the caller's connection mode alone").isFalse();
        }
        assertThat(jobCount()).isEqualTo(1);
        JobRow r = JobRow.load(dataSource, schema, id);
        assertThat(r.kind()).isEqualTo("confirm");
        assertThat(r.state()).isEqualTo("available");
        assertThat(r.priority()).isEqualTo(3);
        assertThat(JSON.readTree(r.argsJson())).isEqualTo(JSON.readTree("{\"orderId\": 7}"));
        assertThat(queryLong("SELECT count(*) FROM " + table("orders"))).isEqualTo(1);
    }

    @Test
    void enqueueAllOnARolledBackTransactionLeavesNoJobs() throws Exception {
        Skipjack s = declaringClient();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            requests.add(JobRequest.of("confirm", new Order(i)));
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            List<Long> ids = s.enqueueAll(c, requests);
            assertThat(ids).hasSize(50).doesNotHaveDuplicates();
            c.rollback();
        }
        assertThat(jobCount()).isZero();
    }

    @Test
    void enqueueAllOnACommittedTransactionLeavesExactlyTheJobsInOrder() throws Exception {
        Skipjack s = declaringClient();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            requests.add(JobRequest.of("confirm", new Order(1000 + i)));
        }
        List<Long> ids;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            ids = s.enqueueAll(c, requests);
            c.commit();
        }
        assertThat(jobCount()).isEqualTo(50);
        // Ids come back in request order: each id's row holds that request's args.
        for (int i = 0; i < ids.size(); i++) {
            // Compared as JSON: PostgreSQL's jsonb normalizes the text, the MySQL family keeps it.
            assertThat(JSON.readTree(JobRow.load(dataSource, schema, ids.get(i)).argsJson()))
                    .isEqualTo(JSON.readTree("{\"orderId\": " + (1000 + i) + "}"));
        }
    }

    @Test
    void refusedEnqueueDoesNotSpoilTheCallersTransaction() throws Exception {
        Skipjack s = declaringClient();
        createOrdersTable();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            assertThatThrownBy(() -> s.enqueueAll(c, List.of(JobRequest.of("confirm", new Order(1)),
                    JobRequest.of("no-such-kind", new Order(2))))).isInstanceOf(UnknownKindException.class);
            // The caller's transaction is still usable and commits its own work, with no job from the refused batch.
            insertOrder(c, 2);
            c.commit();
        }
        assertThat(queryLong("SELECT count(*) FROM " + table("orders"))).isEqualTo(2);
        assertThat(jobCount()).isZero();
    }

    @Test
    void runningWorkerRunsTheJobOnlyOnceTheTransactionCommits() throws Exception {
        Set<Long> ran = ConcurrentHashMap.newKeySet();
        // On SQLite the open transaction holds the only write lock: the marker job below cannot be
        // enqueued (nor any job claimed) until it ends, so "a later job ran meanwhile" cannot
        // happen there. The other tests of this class prove the enqueue commits and rolls back
        // with the caller's transaction on SQLite too.
        Assumptions.assumeTrue(backend() != TestBackend.SQLITE,
                "SQLite: nothing else writes while the caller's transaction is open");
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("confirm", Order.class), job -> {
            ran.add(job.args().orderId());
            return Outcome.complete();
        }));
        s.start();
        long rolledBack;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            rolledBack = s.enqueue(c, "confirm", new Order(1));
            c.rollback();
        }
        long committed;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            committed = s.enqueue(c, "confirm", new Order(2));
            // While the transaction is open the job is invisible to the worker; then it commits.
            long marker = s.enqueue("confirm", new Order(3));
            await("a later job ran", WAIT, () -> ran.contains(3L));
            assertThat(JobRow.load(dataSource, schema, marker).state()).isIn("running", "completed");
            assertThat(ran).doesNotContain(2L);
            c.commit();
        }
        await("committed job completed", WAIT,
                () -> JobRow.load(dataSource, schema, committed).state().equals("completed"));
        assertThat(ran).containsExactlyInAnyOrder(2L, 3L);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id = ?", rolledBack)).isZero();
    }
}
