package dev.skipjack;

import dev.skipjack.support.TestBackend;
import dev.skipjack.audit.AuditChecker.Mode;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerOptions;
import dev.skipjack.audit.process.WorkerProcesses;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.skipjack.Workflow.dependsOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * F-14 across processes: wide fan-ins drained by worker JVMs, one of them SIGKILLed while it holds
 * parents and replaced. The killed worker's parents come back (lease mode: after their lease;
 * transactional mode: at once), and each child still runs exactly once, after every parent
 * completed, never stranded (timgit/pg-boss#777); the independent audit finds nothing lost and no
 * unexplained second execution. Not on SQLite: one process per database file (docs/backends.md).
 */
class WorkflowProcessesTest extends AuditedEveryBackendTest {

    static final int PARENTS = 150;
    static final int ROUNDS = 2;
    static final long LEASE_MILLIS = 3_000;
    static final Duration WAIT = Duration.ofSeconds(120);

    @BeforeEach
    void realProcessesNeedAServer() {
        assumeTrue(backend != TestBackend.SQLITE, "SQLite is one process per database file (docs/backends.md):"
                + " worker JVMs on one file are outside its model");
    }

    @Test
    void leaseModeFanInsSurviveAKilledWorker() throws Exception {
        fanInsWithAKill("lease", Mode.LEASE);
    }

    @Test
    void transactionalModeFanInsSurviveAKilledWorker() throws Exception {
        fanInsWithAKill("transactional", Mode.TRANSACTIONAL);
    }

    private void fanInsWithAKill(String mode, Mode auditMode) throws Exception {
        Skipjack producer = client(builder().kind(JobKind.of("audit", AuditedWorker.Work.class)));
        createAudit();
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            java.util.List<Process> started = new java.util.ArrayList<>();
            for (int w = 0; w < 3; w++) {
                started.add(workers.start(worker(mode, "worker-" + w)));
            }
            for (int round = 1; round <= ROUNDS; round++) {
                EnqueuedWorkflow wf = producer.enqueueWorkflow(fanIn("fan-in-" + round));
                // Kill a worker once some parents are done and others held: the child cannot be
                // released yet, so every execution of it is after the kill.
                await("a third of the parents to complete", WAIT, () -> audited(wf.id()) >= PARENTS / 3);
                String victim = "worker-" + (round - 1);
                WorkerProcesses.kill(started.get(round - 1));
                recordFault(victim, "killed");
                workers.start(worker(mode, "replacement-" + round));
                await("workflow " + wf.id() + " to finish", WAIT,
                        () -> producer.admin().workflow(wf.id()).orElseThrow().state().isFinished());

                WorkflowInfo done = producer.admin().workflow(wf.id()).orElseThrow();
                String label = mode + " round " + round;
                assertThat(done.state()).as(label).isEqualTo(WorkflowState.COMPLETED);
                long join = wf.jobId("join");
                assertThat(queryLong("SELECT count(*) FROM " + audit() + " WHERE job_id = ?", join))
                        .as(label + ": the child ran once").isEqualTo(1);
                assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " AS p WHERE p.workflow_id = ? AND p.id <> ?"
                        + " AND p.finished_at > (SELECT c.attempted_at FROM " + jobsTable() + " AS c WHERE c.id = ?)",
                        wf.id(), join, join)).as(label + ": parents finished after the child was claimed").isZero();
            }
        }
        AuditReport audit = checkAudit(auditMode, (long) ROUNDS * (PARENTS + 1));
        assertThat(audit.ok()).as(audit.summary()).isTrue();
        assertThat(audit.lost() + audit.missing()).isZero();
        assertThat(audit.unexplainedDuplicates()).isZero();
        producer.stop(Duration.ZERO);
    }

    private WorkerOptions worker(String mode, String workerId) {
        return WorkerOptions.of(backend.jdbcUrl(), schema, mode, workerId).concurrency(8).batch(8)
                .leaseMillis(LEASE_MILLIS).pauseMillis(0, 20).rescueMillis(500);
    }

    private static Workflow fanIn(String name) {
        Workflow w = Workflow.named(name);
        String[] parents = new String[PARENTS];
        for (int i = 0; i < PARENTS; i++) {
            parents[i] = "p" + i;
            w = w.add(parents[i], JobRequest.of("audit", new AuditedWorker.Work(i)));
        }
        return w.add("join", JobRequest.of("audit", new AuditedWorker.Work(-1)), dependsOn(parents));
    }

    /** Audit rows of the workflow's jobs: executions that finished their handler. */
    private long audited(long workflowId) {
        return queryLong("SELECT count(*) FROM " + audit() + " AS a JOIN " + jobsTable() + " AS j ON j.id = a.job_id"
                + " WHERE j.workflow_id = ?", workflowId);
    }
}
