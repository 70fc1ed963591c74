package dev.skipjack;

import dev.skipjack.audit.AuditChecker.Mode;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.AuditTables;
import dev.skipjack.audit.AuditTables.JobError;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The audit checker must be able to fail: each test crafts a jobs table and an audit with exactly
 * one kind of violation (or one the checker must accept) and asserts the checker names it. Runs on
 * every backend: each has its own audit SQL.
 */
class AuditCheckerTest extends AuditedEveryBackendTest {

    private List<Long> ids;
    private AuditTables audit;

    @BeforeEach
    void fiveCompletedJobsWithCleanAudit() throws SQLException {
        Skipjack producer = client(builder().kind(JobKind.of("audit", Object.class)));
        ids = producer.enqueueAll(List.of(JobRequest.of("audit", 1), JobRequest.of("audit", 2),
                JobRequest.of("audit", 3), JobRequest.of("audit", 4), JobRequest.of("audit", 5)));
        audit = auditTables();
        createAudit();
        execute("UPDATE " + jobsTable() + " SET state = 'completed', attempt = 1, finished_at = " + nowPlus(Duration.ZERO));
        for (long id : ids) {
            execution(id, 1, "w1", 1, Duration.ofSeconds(-2), Duration.ofSeconds(-1));
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
        execute("UPDATE " + jobsTable() + " SET state = 'running', finished_at = NULL, lease_until = " + nowPlus(Duration.ZERO)
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
        execution(ids.get(4), 1, "w2", 2, Duration.ofSeconds(-10), Duration.ofSeconds(-9));
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
        execute("UPDATE " + audit.executionsTable() + " SET started_at = " + nowPlus(Duration.ofMillis(-1500))
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
        // Killed at midnight UTC, rescued 7 s later (the rescuer's entry names the dead worker).
        execute("INSERT INTO " + table("skipjack_audit_faults") + " (worker, kind, at) VALUES ('w1', 'killed', "
                + switch (backend) {
                    case POSTGRESQL -> "timestamptz '2026-01-01 00:00:00+00'";
                    case SQLITE -> "1767225600000000";
                    default -> "'2026-01-01 00:00:00'";
                } + ")");
        execute("UPDATE " + jobsTable() + " SET attempt = 2, errors = '[{\"attempt\": 1, \"class\": \"LeaseExpired\","
                + " \"worker\": \"w1\", \"at\": \"2026-01-01T00:00:07.000Z\"}]' WHERE id = " + ids.get(0));
        execute("INSERT INTO " + audit.executionsTable() + " (job_id, attempt, worker, pid) VALUES ("
                + ids.get(0) + ", 2, 'w2', 2)");
        AuditReport r = check(Mode.LEASE, 5);
        assertThat(r.recoveryMaxSeconds()).isEqualTo(7.0);
    }

    @Test
    void jobErrorsListsEveryEntryInHistoryOrderWithItsJob() {
        execute("UPDATE " + jobsTable() + " SET attempt = 3, claimed_by = 'w3', errors = '[{\"attempt\": 1,"
                + " \"class\": \"LeaseExpired\", \"worker\": \"w1\"}, {\"attempt\": 2, \"class\":"
                + " \"java.lang.IllegalStateException\", \"worker\": \"w2\"}]' WHERE id = " + ids.get(3));
        execute("UPDATE " + jobsTable() + " SET state = 'discarded', attempt = 1, claimed_by = 'w1', errors ="
                + " '[{\"attempt\": 1, \"class\": \"JobTimeout\"}]' WHERE id = " + ids.get(1));
        assertThat(jobErrors()).containsExactly(
                new JobError(ids.get(1), "audit", "discarded", "w1", 1, 1, "JobTimeout", null),
                new JobError(ids.get(3), "audit", "completed", "w3", 3, 1, "LeaseExpired", "w1"),
                new JobError(ids.get(3), "audit", "completed", "w3", 3, 2, "java.lang.IllegalStateException", "w2"));
    }

    /** Attempt 1 by w1 ran, then the job was rescued and attempt 2 by w2 ran and completed it. */
    private void rescuedAndRunAgain(long id) {
        execute("UPDATE " + jobsTable() + " SET attempt = 2, errors = '[{\"attempt\": 1, \"class\": \"LeaseExpired\"}]'"
                + " WHERE id = " + id);
        execution(id, 2, "w2", 2, Duration.ofMillis(-500), Duration.ZERO);
    }

    /** An audit row of attempt {@code attempt} by {@code worker} that ran from now+started to now+finished. */
    private void execution(long id, int attempt, String worker, int pid, Duration started, Duration finished) {
        execute("INSERT INTO " + audit.executionsTable() + " (job_id, attempt, worker, pid, started_at, finished_at)"
                + " VALUES (" + id + ", " + attempt + ", '" + worker + "', " + pid + ", " + nowPlus(started) + ", "
                + nowPlus(finished) + ")");
    }

    private AuditReport check(Mode mode, long enqueued) {
        return checkAudit(mode, enqueued);
    }
}
