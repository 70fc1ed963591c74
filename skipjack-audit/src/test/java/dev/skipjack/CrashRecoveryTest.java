package dev.skipjack;

import dev.skipjack.support.TestBackend;
import dev.skipjack.audit.AuditChecker.Mode;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerProcesses;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * F-3 and F-4 under a real crash: a worker JVM is killed with SIGKILL while it holds jobs.
 * In lease mode its jobs stay running until their lease expires on the database clock, then come
 * back with the attempt counted and complete elsewhere. In transactional mode the database rolls
 * the dead worker's transactions back, so its jobs are available again at once. The independent
 * audit then finds nothing lost and no unexplained second execution.
 *
 * <p>Runs on PostgreSQL and the MySQL family with real worker JVMs. Not on SQLite: it needs two
 * processes on one database file, which is outside SQLite's one-process model (docs/backends.md,
 * "Several processes on one file"); on SQLite a process that dies takes its in-process workers
 * with it, and the lease rescue of a dead worker's jobs is covered in-process by the core's
 * LeaseRescueTest on every backend.
 */
class CrashRecoveryTest extends AuditedEveryBackendTest {

    static final int JOBS = 40;
    static final long LEASE_MILLIS = 3_000;

    @BeforeEach
    void realProcessesNeedAServer() {
        assumeTrue(backend != TestBackend.SQLITE, "SQLite is one process per database file (docs/backends.md):"
                + " worker JVMs on one file are outside its model");
    }

    @Test
    void leaseModeJobsOfAKilledWorkerComeBackAfterTheLeaseAndComplete() throws Exception {
        Skipjack producer = prepare();
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            Process victim = workers.start(backend.jdbcUrl(), schema, "lease", "victim", 8, 8, LEASE_MILLIS, 60_000);
            // A worker JVM starting on a loaded 2-core CI machine took over 30 s once: the bound is its start, not recovery.
            await("the victim to hold 8 jobs", Duration.ofSeconds(90), () -> runningBy("victim") == 8);
            WorkerProcesses.kill(victim);
            recordFault("victim", "killed");

            // Dead, but nobody may take its jobs before the lease runs out.
            assertThat(runningBy("victim")).isEqualTo(8);
            assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE claimed_by = 'victim' AND lease_until > "
                    + nowPlus(Duration.ZERO))).as("the dead worker's leases outlive it").isPositive();

            workers.start(backend.jdbcUrl(), schema, "lease", "survivor", 8, 8, LEASE_MILLIS, 0);
            await("every job completed", Duration.ofSeconds(60), () -> completed() == JOBS);
        }
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE attempt = 2 AND "
                + backend.jsonLength("errors") + " = 1"))
                .as("jobs rescued from the dead worker, attempt counted").isEqualTo(8);
        AuditReport audit = checkAudit(Mode.LEASE, JOBS);
        assertThat(audit.ok()).as(audit.summary()).isTrue();
        assertThat(audit.lost() + audit.missing()).isZero();
        assertThat(audit.unexplainedDuplicates()).isZero();
        assertThat(audit.recoveryMaxSeconds()).as("the rescue names the killed worker, after the kill").isNotNull();
        assertThat(queryLong("SELECT count(*) FROM " + audit() + " WHERE worker = 'victim'"))
                .as("the victim never finished a job").isZero();
        assertThat(queryLong("SELECT count(*) FROM (SELECT job_id FROM " + audit()
                + " GROUP BY job_id HAVING count(*) > 1) d")).isZero();
        producer.stop(Duration.ZERO);
    }

    @Test
    void transactionalModeJobsOfAKilledWorkerAreAvailableAtOnce() throws Exception {
        prepare();
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            // A lease far longer than the test: recovery must not depend on it.
            Process victim = workers.start(backend.jdbcUrl(), schema, "transactional", "victim", 8, 8,
                    600_000, 60_000);
            await("the victim to hold 8 jobs", Duration.ofSeconds(90), () -> lockedRows() == 8);
            long availableBefore = available();
            WorkerProcesses.kill(victim);

            await("the killed worker's jobs to be unlocked", Duration.ofSeconds(10), () -> lockedRows() == 0);
            assertThat(available()).isEqualTo(availableBefore);
            assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state <> 'available'")).isZero();
            assertThat(queryLong("SELECT max(attempt) FROM " + jobsTable()))
                    .as("a rolled-back claim leaves no trace").isZero();

            workers.start(backend.jdbcUrl(), schema, "transactional", "survivor", 8, 8, 600_000, 0);
            await("every job completed", Duration.ofSeconds(60), () -> completed() == JOBS);
        }
        assertThat(queryLong("SELECT count(*) FROM " + audit())).isEqualTo(JOBS);
        assertThat(queryLong("SELECT count(*) FROM " + audit() + " WHERE worker = 'victim'")).isZero();
        AuditReport audit = checkAudit(Mode.TRANSACTIONAL, JOBS);
        assertThat(audit.ok()).as(audit.summary()).isTrue();
    }

    private Skipjack prepare() {
        Skipjack producer = client(builder().kind(JobKind.of("audit", AuditedWorker.Work.class)));
        createAudit();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            requests.add(JobRequest.of("audit", new AuditedWorker.Work(i)));
        }
        producer.enqueueAll(requests);
        return producer;
    }

    private long runningBy(String worker) {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'running' AND claimed_by = ?", worker);
    }

    private long completed() {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'");
    }

    private long available() {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'available'");
    }

    /** Rows of the jobs table locked by some transaction right now (a transactional claim in progress). */
    private long lockedRows() {
        return JOBS - queryLong("SELECT count(*) FROM (SELECT id FROM " + jobsTable() + " FOR UPDATE SKIP LOCKED) t");
    }
}
