package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MySQL dialect's own path (no INSERT ... RETURNING: one insert per job in a JDBC batch, ids
 * from the generated keys), run on MariaDB, whose statements it shares: MySQL 8 cannot be
 * installed on the build machines, and this is the one code path MariaDB alone would not run.
 * With SKIPJACK_TEST_MYSQL_URL set, the guarantee tests run on a real MySQL as well.
 */
class MySqlStatementsOnMariaDbTest extends DatabaseTest {

    record Work(int n) {
    }

    private static final JobKind<Work> WORK = JobKind.of("work", Work.class);

    @Override
    protected TestBackend backend() {
        return TestBackend.MARIADB;
    }

    private Skipjack.Builder mysql() {
        return builder().backend(Backend.MYSQL);
    }

    @Test
    void batchEnqueueReturnsEachJobsOwnIdInRequestOrder() {
        Skipjack s = client(mysql());
        assertThat(s.backend()).isEqualTo(Backend.MYSQL);
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            EnqueueOptions options = EnqueueOptions.defaults().withPriority(i % 7);
            requests.add(JobRequest.of(WORK, new Work(i), i % 3 == 0 ? options.withDelay(Duration.ofHours(1)) : options));
        }
        List<Long> ids = s.enqueueAll(requests);

        assertThat(ids).hasSize(300).doesNotHaveDuplicates();
        for (int i = 0; i < ids.size(); i++) {
            long id = ids.get(i);
            assertThat(queryLong("SELECT " + backend().jsonInt("args", "n") + " FROM " + jobsTable() + " WHERE id = ?", id))
                    .as("the row of id %d holds request %d", id, i).isEqualTo(i);
            assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id = ? AND priority = ? AND state = ?",
                    id, i % 7, i % 3 == 0 ? "scheduled" : "available")).isEqualTo(1);
        }
    }

    @Test
    void enqueueInARolledBackTransactionLeavesNoJobAndCommittedOnesRun() throws Exception {
        Skipjack s = client(mysql().queue("default", 4).handler(WORK, job -> Outcome.complete()));
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            s.enqueueAll(c, List.of(JobRequest.of(WORK, new Work(1)), JobRequest.of(WORK, new Work(2))));
            c.rollback();
        }
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isZero();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            requests.add(JobRequest.of(WORK, new Work(i)));
        }
        List<Long> ids;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            ids = s.enqueueAll(c, requests);
            c.commit();
        }
        s.start();
        await("all completed", Duration.ofSeconds(30), () -> s.countByState().get(JobState.COMPLETED) == 200);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed' AND attempt = 1"))
                .isEqualTo(ids.size());
    }
}
