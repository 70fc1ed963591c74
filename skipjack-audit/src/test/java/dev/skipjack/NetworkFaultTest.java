package dev.skipjack;

import dev.skipjack.support.TcpProxy;
import dev.skipjack.support.TestBackend;
import dev.skipjack.audit.AuditChecker.Mode;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerProcesses;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * RELIABILITY.md fault 4: a TCP proxy between one worker JVM and the database stalls all its
 * traffic (a partition: connections stay open, nothing gets through). The cut-off worker cannot
 * extend its leases, so it must stop its jobs itself within a lease, before the rescuer gives them
 * to the healthy worker: its executions never overlap the rescued ones, and only the rescued
 * copies count. When the network comes back it works again on its own.
 *
 * <p>The proxy forwards bytes, so the fault is the same for every server: runs on PostgreSQL and
 * the MySQL family. Not on SQLite, which has no network and whose model is one process per
 * database file (docs/backends.md).
 */
class NetworkFaultTest extends AuditedEveryBackendTest {

    static final long LEASE_MILLIS = 2_000;
    /**
     * Longer than the lease plus the time between the claim and the stall: a cut-off worker that
     * did not stop would still be running at rescue time. The stall comes only after this test has
     * seen all four jobs running, which on a loaded machine can be over a second after the claim,
     * and a heartbeat that got through in between rightly keeps the lease until the stall plus a
     * lease. With a handler of three seconds such a worker finished its jobs on a valid lease
     * (seen once in CI under load: 4 executions "behind the partition").
     */
    static final long HANDLER_MILLIS = 6_000;

    @BeforeEach
    void needsAServer() {
        assumeTrue(backend != TestBackend.SQLITE, "SQLite has no network and is one process per database file"
                + " (docs/backends.md): no worker JVM to partition from it");
    }

    @Test
    void workerBehindAStalledNetworkStopsItsJobsAndOnlyTheRescuedCopiesCount() throws Exception {
        Skipjack producer = client(builder().kind(JobKind.of("audit", AuditedWorker.Work.class)));
        createAudit();
        List<Long> partitioned = producer.enqueueAll(requests(4));
        URI db = URI.create(backend.jdbcUrl().substring("jdbc:".length()));
        int defaultPort = backend == TestBackend.POSTGRESQL ? 5432 : 3306;
        try (TcpProxy proxy = new TcpProxy(db.getHost(), db.getPort() > 0 ? db.getPort() : defaultPort);
             WorkerProcesses workers = new WorkerProcesses(schema)) {
            workers.start(proxy.proxiedUrl(backend.jdbcUrl()), schema, "lease", "cutoff", 4, 4, LEASE_MILLIS,
                    HANDLER_MILLIS);
            await("the cut-off worker to hold 4 jobs", Duration.ofSeconds(30), () -> runningBy("cutoff") == 4);
            proxy.stall();
            recordFault("cutoff", "stalled");

            Process healthy = workers.start(backend.jdbcUrl(), schema, "lease", "healthy", 4, 4, LEASE_MILLIS, 0);
            await("the rescued jobs to complete", Duration.ofSeconds(30), () -> queryLong(
                    "SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'") == 4);
            // Keep the partition until the cut-off worker's handlers would have finished on their own.
            Thread.sleep(HANDLER_MILLIS); // fault duration, not synchronisation
            proxy.resume();

            // Back on the network, the cut-off worker claims and completes new work by itself.
            WorkerProcesses.terminate(healthy);
            producer.enqueueAll(requests(4));
            await("the cut-off worker to complete new jobs", Duration.ofSeconds(30), () -> queryLong(
                    "SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed' AND claimed_by = 'cutoff'") == 4);
        }
        assertThat(jobErrors().stream().filter(e -> e.jobAttempt() == 2 && "LeaseExpired".equals(e.errorClass())
                && "cutoff".equals(e.worker()) && "healthy".equals(e.claimedBy())).map(e -> e.jobId()).distinct())
                .as("jobs rescued from the cut-off worker and completed by the healthy one")
                .containsExactlyInAnyOrderElementsOf(partitioned);
        assertThat(queryLong("SELECT count(*) FROM " + audit() + " WHERE worker = 'cutoff' AND job_id IN ("
                + String.join(", ", partitioned.stream().map(String::valueOf).toList()) + ")"))
                .as("executions the cut-off worker finished behind the partition").isZero();
        AuditReport report = checkAudit(Mode.LEASE, 8);
        assertThat(report.ok()).as(report.summary()).isTrue();
    }

    private static List<JobRequest> requests(int n) {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            requests.add(JobRequest.of("audit", new AuditedWorker.Work(i)));
        }
        return requests;
    }

    private long runningBy(String worker) {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'running' AND claimed_by = ?", worker);
    }
}
