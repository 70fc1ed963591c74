package dev.skipjack;

import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.testing.audit.AuditChecker;
import dev.skipjack.testing.audit.AuditChecker.Mode;
import dev.skipjack.testing.audit.AuditReport;
import dev.skipjack.testing.audit.AuditTables;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The audit checker must be able to fail: each test crafts a jobs table and an audit with exactly
 * one kind of violation (or one the checker must accept) and asserts the checker names it.
 */
class AuditCheckerTest extends AuditedDatabaseTest {

    private List<Long> ids;
    private AuditTables audit;

    @BeforeEach
    void fiveCompletedJobsWithCleanAudit() throws SQLException {
        Skipjack producer = client(builder().kind(JobKind.of("audit", Object.class)));
        ids = producer.enqueueAll(List.of(JobRequest.of("audit", 1), JobRequest.of("audit", 2),
                JobRequest.of("audit", 3), JobRequest.of("audit", 4), JobRequest.of("audit", 5)));
        audit = new AuditTables(new TableNames(schema, "skipjack_"));
        try (Connection c = dataSource.getConnection()) {
            audit.create(c);
        }
        execute("UPDATE " + jobsTable() + " SET state = 'completed', attempt = 1, finished_at = now()");
        for (long id : ids) {
            execute("INSERT INTO " + audit.executionsTable() + " (job_id, attempt, worker, pid, started_at, finished_at)"
                    + " VALUES (" + id + ", 1, 'w1', 1, now() - interval '2 seconds', now() - interval '1 second')");
        }
    }

    @Test
    void cleanRunPasses() throws SQLException {
        AuditReport lease = check(Mode.LEASE, 5);
        assertThat(lease.ok()).as(lease.summary()).isTrue();
        assertThat(lease.jobs()).isEqualTo(5);
        assertThat(check(Mode.TRANSACTIONAL, 5).ok()).isTrue();
    }

    @Test
    void jobMissingFromTheTableIsLost() throws SQLException {
        AuditReport r = check(Mode.LEASE, 6);
        assertThat(r.missing()).isEqualTo(1);
        assertThat(r.ok()).isFalse();
    }

    @Test
    void completedJobWithoutTheCountingExecutionIsLost() throws SQLException {
        execute("DELETE FROM " + audit.executionsTable() + " WHERE job_id = " + ids.get(0));
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.summary()).contains("lost e.g. jobs [" + ids.get(0) + "]");
        assertThat(r.ok()).isFalse();
    }

    @Test
    void staleExecutionsCompletionCountingIsLost() throws SQLException {
        // The job completed at attempt 2 but only attempt 1 ran: a stale acknowledgement counted.
        execute("UPDATE " + jobsTable() + " SET attempt = 2, errors = '[{\"attempt\": 1, \"class\": \"LeaseExpired\"}]'"
                + " WHERE id = " + ids.get(1));
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.attemptMismatches()).isZero();
    }

    @Test
    void unfinishedJobIsStuck() throws SQLException {
        execute("UPDATE " + jobsTable() + " SET state = 'running', finished_at = NULL, lease_until = now()"
                + " WHERE id = " + ids.get(2));
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.stuck()).isEqualTo(1);
        assertThat(r.ok()).isFalse();
    }

    @Test
    void secondExecutionWithoutFaultIsUnexplained() throws SQLException {
        rescuedAndRunAgain(ids.get(3));
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.unexplainedDuplicates()).isEqualTo(1);
        assertThat(r.explainedDuplicates()).isZero();
        assertThat(r.ok()).isFalse();
    }

    @Test
    void secondExecutionAfterItsWorkerWasKilledIsExplainedInLeaseMode() throws SQLException {
        rescuedAndRunAgain(ids.get(3));
        try (Connection c = dataSource.getConnection()) {
            audit.recordFault(c, "w1", "killed");
        }
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.explainedDuplicates()).isEqualTo(1);
        assertThat(r.ok()).as(r.summary()).isTrue();
    }

    @Test
    void faultAgainstAnotherWorkerExplainsNothing() throws SQLException {
        rescuedAndRunAgain(ids.get(3));
        try (Connection c = dataSource.getConnection()) {
            audit.recordFault(c, "w3", "killed");
        }
        assertThat(check(Mode.LEASE, 5).unexplainedDuplicates()).isEqualTo(1);
    }

    @Test
    void transactionalModeAllowsNoSecondCommittedExecutionEvenWithAFault() throws SQLException {
        rescuedAndRunAgain(ids.get(3));
        try (Connection c = dataSource.getConnection()) {
            audit.recordFault(c, "w1", "killed");
        }
        AuditReport r = check(Mode.TRANSACTIONAL, 5);
        assertThat(r.unexplainedDuplicates()).isEqualTo(1);
        assertThat(r.ok()).isFalse();
    }

    @Test
    void twoExecutionsOfTheSameAttemptAreNeverExplained() throws SQLException {
        execute("INSERT INTO " + audit.executionsTable() + " (job_id, attempt, worker, pid, started_at, finished_at)"
                + " VALUES (" + ids.get(4) + ", 1, 'w2', 2, now() - interval '10 seconds', now() - interval '9 seconds')");
        try (Connection c = dataSource.getConnection()) {
            audit.recordFault(c, "*", "restart");
        }
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.unexplainedDuplicates()).isEqualTo(1);
        assertThat(r.overlappingLeases()).isZero();
    }

    @Test
    void executionsOfOneJobAtTheSameTimeAreOverlappingLeases() throws SQLException {
        rescuedAndRunAgain(ids.get(0));
        // The second execution began before the first had finished.
        execute("UPDATE " + audit.executionsTable() + " SET started_at = now() - interval '1500 milliseconds'"
                + " WHERE job_id = " + ids.get(0) + " AND attempt = 2");
        try (Connection c = dataSource.getConnection()) {
            audit.recordFault(c, "w1", "killed");
        }
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.overlappingLeases()).isEqualTo(1);
        assertThat(r.ok()).isFalse();
    }

    @Test
    void attemptsWithoutMatchingErrorHistoryAreMismatches() throws SQLException {
        execute("UPDATE " + jobsTable() + " SET attempt = 3 WHERE id = " + ids.get(1));
        execute("UPDATE " + audit.executionsTable() + " SET attempt = 3 WHERE job_id = " + ids.get(1));
        // A discarded job must have one error per attempt.
        execute("UPDATE " + jobsTable() + " SET state = 'discarded' WHERE id = " + ids.get(2));
        // An error naming an attempt the job never reached.
        execute("UPDATE " + jobsTable() + " SET attempt = 2, errors = '[{\"attempt\": 7}]' WHERE id = " + ids.get(3));
        execute("UPDATE " + audit.executionsTable() + " SET attempt = 2 WHERE job_id = " + ids.get(3));
        // An audit row of an attempt the job never reached.
        execute("INSERT INTO " + audit.executionsTable() + " (job_id, attempt, worker, pid) VALUES ("
                + ids.get(4) + ", 5, 'w1', 1)");
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.attemptMismatches()).isEqualTo(4);
        assertThat(r.ok()).isFalse();
    }

    @Test
    void recoveryTimeIsMeasuredFromTheKillToTheRescue() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            audit.recordFault(c, "w1", "killed");
        }
        execute("UPDATE " + jobsTable() + " SET attempt = 2, errors = jsonb_build_array(jsonb_build_object("
                + "'attempt', 1, 'class', 'LeaseExpired', 'worker', 'w1', 'at', clock_timestamp() + interval '7 seconds'))"
                + " WHERE id = " + ids.get(0));
        execute("INSERT INTO " + audit.executionsTable() + " (job_id, attempt, worker, pid) VALUES ("
                + ids.get(0) + ", 2, 'w2', 2)");
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.recoveryMaxSeconds()).isBetween(6.5, 7.5);
    }

    /** Attempt 1 by w1 ran, then the job was rescued and attempt 2 by w2 ran and completed it. */
    private void rescuedAndRunAgain(long id) {
        execute("UPDATE " + jobsTable() + " SET attempt = 2, errors = '[{\"attempt\": 1, \"class\": \"LeaseExpired\"}]'"
                + " WHERE id = " + id);
        execute("INSERT INTO " + audit.executionsTable() + " (job_id, attempt, worker, pid, started_at, finished_at)"
                + " VALUES (" + id + ", 2, 'w2', 2, now() - interval '500 milliseconds', now())");
    }

    private AuditReport check(Mode mode, long enqueued) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return new AuditChecker(new TableNames(schema, "skipjack_")).check(c, mode, enqueued);
        }
    }
}
