package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestDatabase;
import dev.skipjack.testing.process.AuditedWorker;
import dev.skipjack.testing.process.WorkerProcesses;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-1 and F-2 at scale: 100,000 jobs drained by 32 workers in 4 separate JVMs, claiming batches of
 * 50. Every execution writes an audit row (RELIABILITY.md); the audit, not Skipjack's own
 * bookkeeping, proves each job ran exactly once and none was left behind. The naive
 * SELECT-then-UPDATE claim under the same harness shows the check can fail.
 */
class NoDuplicatesNoLossTest extends AuditedDatabaseTest {

    static final int JOBS = 100_000;
    static final int PROCESSES = 4;
    static final int WORKERS_PER_PROCESS = 8;
    static final int BATCH = 50;

    @Test
    void leaseModeRunsEveryJobExactlyOnce() throws Exception {
        drain("lease", JOBS);
        assertExactlyOnce(JOBS);
    }

    @Test
    void transactionalModeRunsEveryJobExactlyOnce() throws Exception {
        drain("transactional", JOBS);
        assertExactlyOnce(JOBS);
    }

    @Test
    void naiveSelectThenUpdateClaimProducesDuplicatesUnderTheSameHarness() throws Exception {
        int jobs = 10_000;
        drain("naive", jobs);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'")).isEqualTo(jobs);
        assertThat(duplicateExecutions())
                .as("the naive claim must hand some jobs to two workers, or this harness could not catch it")
                .isPositive();
    }

    private void drain(String mode, int jobs) throws Exception {
        Skipjack producer = client(builder().kind(JobKind.of("audit", AuditedWorker.Work.class)));
        createAudit();
        List<JobRequest> requests = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of("audit", new AuditedWorker.Work(i)));
        }
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            // Every worker JVM is up before the first job exists, so all of them compete for all of it.
            for (int p = 0; p < PROCESSES; p++) {
                workers.start(TestDatabase.jdbcUrl(), schema, mode, mode + "-" + p, WORKERS_PER_PROCESS, BATCH,
                        15_000, 0);
            }
            producer.enqueueAll(requests);
            await("all " + jobs + " jobs terminal", Duration.ofMinutes(4), () -> queryLong(
                    "SELECT count(*) FROM " + jobsTable() + " WHERE state NOT IN ('completed', 'discarded', 'cancelled')") == 0);
        }
    }

    private void assertExactlyOnce(int jobs) {
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'"))
                .as("completed jobs").isEqualTo(jobs);
        assertThat(duplicateExecutions()).as("jobs executed more than once").isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " j WHERE NOT EXISTS"
                + " (SELECT 1 FROM " + audit() + " a WHERE a.job_id = j.id)"))
                .as("completed jobs with no execution").isZero();
        assertThat(queryLong("SELECT count(DISTINCT worker) FROM " + audit()))
                .as("workers that took part").isEqualTo(PROCESSES);
    }

    private long duplicateExecutions() {
        return queryLong("SELECT count(*) FROM (SELECT job_id FROM " + audit()
                + " GROUP BY job_id HAVING count(*) > 1) d");
    }
}
