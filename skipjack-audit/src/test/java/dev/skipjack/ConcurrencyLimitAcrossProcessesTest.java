package dev.skipjack;

import dev.skipjack.support.TestBackend;
import dev.skipjack.audit.AuditChecker.Mode;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerOptions;
import dev.skipjack.audit.process.WorkerProcesses;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * F-12 and F-13 across worker JVMs: 4 processes of 6 workers drain jobs limited to 3 per partition
 * (and, in the second test, sequences), and one process is killed with SIGKILL mid-drain. Each
 * execution records, as its handler begins, how many executions of its key run at that moment
 * (the audit's key probe, written by the worker JVMs themselves); the largest count is the most
 * that ran at once. The limit is never exceeded, is reached, and the killed process's slots come
 * back with its leases: every job completes.
 */
class ConcurrencyLimitAcrossProcessesTest extends AuditedEveryBackendTest {

    static final int PROCESSES = 4;
    static final int WORKERS = 6;
    static final int PARTITIONS = 5;
    static final int LIMIT = 3;
    static final long LEASE_MILLIS = 3_000;
    static final Duration DRAIN = Duration.ofMinutes(3);

    @BeforeEach
    void realProcessesNeedAServer() {
        assumeTrue(backend != TestBackend.SQLITE, "SQLite is one process per database file (docs/backends.md):"
                + " worker JVMs on one file are outside its model; ConcurrencyLimitTest covers it in one JVM");
    }

    @Test
    void aLimitPerPartitionHoldsAcrossProcessesAndAKilledProcessGivesItsSlotsBack() throws Exception {
        JobKind<AuditedWorker.Work> limited = JobKind.of("audit", AuditedWorker.Work.class)
                .limitedTo(LIMIT, w -> w.n() % PARTITIONS);
        int jobs = 300;
        List<JobRequest> requests = new ArrayList<>();
        for (int n = 0; n < jobs; n++) {
            requests.add(JobRequest.of(limited, new AuditedWorker.Work(n)));
        }
        drainKillingOne(requests);

        Map<String, Long> peaks = peaksByKey();
        assertThat(peaks).as("every partition ran").hasSize(PARTITIONS);
        assertThat(peaks.values()).as("most executions of one partition at once: %s", peaks).allMatch(p -> p <= LIMIT);
        assertThat(peaks.values()).as("the limit is reached: %s", peaks).contains((long) LIMIT);
        assertAllCompletedAndAudited(jobs);
    }

    @Test
    void sequencesRunOneAtATimeInOrderAcrossProcesses() throws Exception {
        JobKind<AuditedWorker.Work> audit = JobKind.of("audit", AuditedWorker.Work.class);
        int jobs = 200;
        int keys = 8;
        List<JobRequest> requests = new ArrayList<>();
        for (int n = 0; n < jobs; n++) {
            requests.add(JobRequest.of(audit, new AuditedWorker.Work(n),
                    EnqueueOptions.defaults().withSequenceKey("account-" + n % keys)));
        }
        drainKillingOne(requests);

        Map<String, Long> peaks = peaksByKey();
        assertThat(peaks).hasSize(keys);
        assertThat(peaks.values()).as("one at a time per key: %s", peaks).allMatch(p -> p == 1);
        // An execution's audit row is written as its handler ends, before the job completes and the
        // next of its key is admitted: per key, the audit's row order is the order jobs ran in.
        assertThat(queryLong("SELECT count(*) FROM " + audit() + " a JOIN " + audit() + " b"
                + " ON b.id > a.id JOIN " + jobsTable() + " ja ON ja.id = a.job_id JOIN " + jobsTable() + " jb"
                + " ON jb.id = b.job_id WHERE ja.concurrency_key = jb.concurrency_key AND jb.id < ja.id"
                + " AND a.job_id <> b.job_id"))
                .as("pairs of one key that ran against their enqueue order").isZero();
        assertAllCompletedAndAudited(jobs);
    }

    /** Drains the requests with 4 worker JVMs, killing one once a third of the jobs completed. */
    private void drainKillingOne(List<JobRequest> requests) throws Exception {
        Skipjack producer = client(builder());
        createAudit();
        try (Connection c = dataSource.getConnection()) {
            auditTables().createKeyProbe(c);
        }
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            List<Process> processes = new ArrayList<>();
            for (int p = 0; p < PROCESSES; p++) {
                processes.add(workers.start(WorkerOptions.of(backend.jdbcUrl(), schema, "lease", "w" + p)
                        .concurrency(WORKERS).batch(4).leaseMillis(LEASE_MILLIS).pauseMillis(15, 35).probeKeys()));
            }
            producer.enqueueAll(requests);
            await("a third of the jobs completed", DRAIN, () -> completed() >= requests.size() / 3);
            WorkerProcesses.kill(processes.get(0));
            recordFault("w0", "killed");
            await("every job completed", DRAIN, () -> completed() == requests.size());
        }
    }

    private void assertAllCompletedAndAudited(int jobs) {
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state <> 'completed'")).isZero();
        AuditReport report = checkAudit(Mode.LEASE, jobs);
        assertThat(report.ok()).as(report.summary()).isTrue();
        assertThat(report.unexplainedDuplicates()).isZero();
    }

    private long completed() {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'");
    }

    /** The most executions of each key seen running at once, from the probe the worker JVMs wrote. */
    private Map<String, Long> peaksByKey() {
        Map<String, Long> peaks = new LinkedHashMap<>();
        String table = backend.qualified(schema, "skipjack_audit_key_peaks");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT concurrency_key, max(running) FROM " + table
                     + " GROUP BY concurrency_key ORDER BY concurrency_key")) {
            while (rs.next()) {
                peaks.put(rs.getString(1), rs.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return peaks;
    }
}
