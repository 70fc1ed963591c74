package dev.skipjack;

import dev.skipjack.support.TestBackend;
import dev.skipjack.audit.AuditChecker.Mode;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerProcesses;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * RELIABILITY.md fault 7: worker JVMs whose wall clocks are ten minutes off in either direction
 * (run under libfaketime, {@code apt-get install faketime}; the test is skipped without it). All
 * lease math is on the database clock and local expiry on the monotonic clock, so the worker
 * that is behind neither steals the live jobs of the one that is ahead, nor keeps the jobs of a
 * dead one.
 *
 * <p>Only the worker JVMs' clocks move (the database server is not started under libfaketime), so
 * the fault is the same for every server: runs on PostgreSQL and the MySQL family, where the
 * database clock is {@code UTC_TIMESTAMP(6)}. Not on SQLite: the database clock would be the
 * worker process's own, and worker JVMs on one file are outside its one-process model
 * (docs/backends.md).
 */
class ClockSkewTest extends AuditedEveryBackendTest {

    static final long LEASE_MILLIS = 2_000;
    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    @Test
    void skewedWorkersNeitherStealLiveJobsNorKeepDeadOnes() throws Exception {
        assumeTrue(backend != TestBackend.SQLITE, "on SQLite the database clock is the process's own clock, and"
                + " worker JVMs on one file are outside its one-process model (docs/backends.md)");
        if (!Files.isReadable(LIBFAKETIME)) {
            // CI installs it (.ci/run) and must run this test; a fresh developer machine skips it.
            assertThat(System.getenv("CI")).as("libfaketime is missing on CI (apt-get install faketime)").isNotEqualTo("true");
            assumeTrue(false, "libfaketime is not installed (apt-get install faketime)");
        }
        Skipjack producer = client(builder().kind(JobKind.of("audit", AuditedWorker.Work.class)));
        createAudit();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            requests.add(JobRequest.of("audit", new AuditedWorker.Work(i)));
        }
        producer.enqueueAll(requests);
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            workers.environment(Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME", "+10m"));
            Process ahead = workers.start(backend.jdbcUrl(), schema, "lease", "ahead", 4, 4, LEASE_MILLIS, 60_000, 200);
            assertThat(workers.lastWorkerClockMillis() - System.currentTimeMillis()).as("skew of 'ahead'")
                    .isBetween(590_000L, 610_000L);
            await("'ahead' to hold 4 jobs", Duration.ofSeconds(30), () -> runningBy("ahead") == 4);

            workers.environment(Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME", "-10m"));
            workers.start(backend.jdbcUrl(), schema, "lease", "behind", 4, 4, LEASE_MILLIS, 0, 200);
            assertThat(System.currentTimeMillis() - workers.lastWorkerClockMillis()).as("skew of 'behind'")
                    .isBetween(590_000L, 610_000L);
            await("'behind' to complete the other 4 jobs", Duration.ofSeconds(30), () -> completed() == 4);
            // Three leases with both alive, rescuers running every 200 ms: nothing taken from 'ahead'.
            long until = System.nanoTime() + 3 * LEASE_MILLIS * 1_000_000;
            while (System.nanoTime() < until) {
                assertThat(runningBy("ahead")).as("jobs still held by the live worker that is ahead").isEqualTo(4);
                Thread.sleep(100); // observation cadence, not synchronisation
            }
            WorkerProcesses.kill(ahead);
            recordFault("ahead", "killed");
            await("the dead worker's jobs rescued and completed by 'behind'", Duration.ofSeconds(4 * LEASE_MILLIS / 1000 + 10),
                    () -> completed() == 8);
        }
        assertThat(jobErrors().stream().filter(e -> "LeaseExpired".equals(e.errorClass()) && "ahead".equals(e.worker())
                && "behind".equals(e.claimedBy())).map(e -> e.jobId()).distinct())
                .as("the dead worker's jobs, rescued and completed by 'behind'").hasSize(4);
        AuditReport report = checkAudit(Mode.LEASE, 8);
        assertThat(report.ok()).as(report.summary()).isTrue();
        assertThat(report.recoveryMaxSeconds()).isLessThan(LEASE_MILLIS / 1000.0 + 2);
    }

    private long runningBy(String worker) {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'running' AND claimed_by = ?", worker);
    }

    private long completed() {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'");
    }
}
