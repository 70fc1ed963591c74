package dev.skipjack;

import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.maintenance.LeaseRescuer;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.skipjack.Workflow.dependsOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator's cancel or discard of a running job (F-25) stops it without letting anything run
 * beside its handler: the job stays running, holding its concurrency slot, its unique key and its
 * workflow's progress, until the handler has returned; then it ends as asked (or completed, when
 * the handler completed its work first). A retry cannot start a second execution meanwhile, and a
 * job whose worker is gone ends as asked when its lease expires. Handlers record when they ran;
 * the tests compare those times, not Skipjack's bookkeeping.
 */
class OperatorStopOfRunningJobTest extends EveryBackendTest {

    /**
     * {@code does}: "hold" waits for the test (an interrupt makes it fail once released), "finish"
     * waits and completes whatever happens, "stubborn" swallows its first interrupt and fails at
     * its second, "quick" completes.
     */
    record Args(String name, String does) {
    }

    static final JobKind<Args> WORK = JobKind.of("stop-work", Args.class);
    static final Duration WAIT = Duration.ofSeconds(30);
    /** A short lease: the heartbeat that carries the request comes every second. */
    static final Duration LEASE = Duration.ofSeconds(3);

    private final CountDownLatch release = new CountDownLatch(1);
    private final Map<String, CountDownLatch> started = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> interrupted = new ConcurrentHashMap<>();
    /** Per job name: when its handler started and returned (System.nanoTime). */
    private final Map<String, long[]> ran = new ConcurrentHashMap<>();

    @AfterEach
    void releaseHandlers() {
        release.countDown();
    }

    private CountDownLatch started(String name) {
        return started.computeIfAbsent(name, n -> new CountDownLatch(1));
    }

    private CountDownLatch interrupted(String name) {
        return interrupted.computeIfAbsent(name, n -> new CountDownLatch(1));
    }

    private Outcome run(Job<Args> job) {
        String name = job.args().name();
        long start = System.nanoTime();
        started(name).countDown();
        boolean wasInterrupted = false;
        int interrupts = 0;
        if (!job.args().does().equals("quick")) {
            // Waits for the test whatever happens, so the test decides when the handler really ends.
            while (true) {
                try {
                    if (!release.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never released " + name);
                    }
                    break;
                } catch (InterruptedException e) {
                    wasInterrupted = true;
                    interrupted(name).countDown();
                    if (++interrupts == 2 && job.args().does().equals("stubborn")) {
                        ran.put(name, new long[] {start, System.nanoTime()});
                        throw new IllegalStateException(name + " gave in at its second interrupt");
                    }
                }
            }
        }
        ran.put(name, new long[] {start, System.nanoTime()});
        if (wasInterrupted && job.args().does().equals("hold")) {
            throw new IllegalStateException(name + " stopped after its interrupt");
        }
        return Outcome.complete();
    }

    private Skipjack worker() {
        Skipjack s = client(builder().lease(LEASE).queue("default", 4).handler(WORK, this::run));
        s.start();
        return s;
    }

    private static JobRequest job(String name, String does, EnqueueOptions options) {
        return JobRequest.of(WORK, new Args(name, does), options);
    }

    private static void awaitLatch(String what, CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as(what).isTrue();
    }

    /**
     * On MariaDB/MySQL a maintenance statement's locking read can hold the row for an instant (the
     * rescuer's range scan locks the first row past its range), and cancel and discard skip locked
     * rows rather than wait on a running transactional job: ask until it takes.
     */
    private static void askToStop(Skipjack s, JobAction action, long id) {
        await(action + " of job " + id + " to take", WAIT, () -> s.admin().act(action, id));
    }

    private JobInfo job(Skipjack s, long id) {
        return s.admin().job(id).orElseThrow();
    }

    private static JobError last(JobInfo job) {
        assertThat(job.errors()).as("job " + job.id() + " has an error history").isNotEmpty();
        return job.errors().get(job.errors().size() - 1);
    }

    private SqlStatements sql() {
        return Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
    }

    @Test
    void aCancelledJobKeepsItsKeysSlotUntilItsHandlerStoppedAndCannotBeRetriedMeanwhile() throws Exception {
        Skipjack s = worker();
        EnqueueOptions keyed = EnqueueOptions.defaults().withConcurrencyKey("tenant-1", 1);
        long a = s.enqueueWithResult(job("a", "hold", keyed)).id();
        awaitLatch("a started", started("a"));
        long b = s.enqueueWithResult(job("b", "quick", keyed)).id();

        assertThat(s.admin().delete(a)).as("a running job is not deleted").isFalse();
        askToStop(s, JobAction.CANCEL, a);

        JobInfo asked = job(s, a);
        assertThat(asked.state()).as("still running: its handler has not stopped").isEqualTo(JobState.RUNNING);
        assertThat(asked.stopRequested()).isEqualTo(JobState.CANCELLED);
        assertThat(asked.leaseUntil()).as("it keeps its lease").isNotNull();
        awaitLatch("a's handler interrupted at its worker's next heartbeat", interrupted("a"));
        assertThat(s.admin().retry(a)).as("no second execution while the first runs").isFalse();
        // Twenty admission passes (every 50 ms here) while a's handler still runs: b must wait.
        long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        while (System.nanoTime() < until) {
            assertThat(job(s, b).state()).as("b waits for the slot a holds").isEqualTo(JobState.WAITING);
            assertThat(started("b").getCount()).isOne();
            Thread.sleep(20); // a polling interval, not synchronization: the loop asserts throughout
        }

        release.countDown();
        JobInfo ended = awaitState(s, a, JobState.CANCELLED, WAIT);
        awaitState(s, b, JobState.COMPLETED, WAIT);
        assertThat(ended.stopRequested()).isNull();
        assertThat(ended.leaseUntil()).isNull();
        assertThat(ended.finishedAt()).isNotNull();
        assertThat(last(ended).errorClass()).isEqualTo("Cancelled");
        assertThat(last(ended).message()).contains("cancelled by an operator while running")
                .contains("IllegalStateException").contains("a stopped after its interrupt");
        assertThat(ran.get("b")[0]).as("b started after a's handler returned").isGreaterThan(ran.get("a")[1]);

        assertThat(s.admin().retry(a)).as("once it has ended, a retry is an operator's to make").isTrue();
        awaitState(s, a, JobState.COMPLETED, WAIT);
    }

    @Test
    void aDiscardedJobKeepsItsUniqueKeyUntilItsHandlerStopped() throws Exception {
        Skipjack s = worker();
        EnqueueOptions unique = EnqueueOptions.defaults().withUnique(Unique.byKey("nightly-report"));
        long a = s.enqueueWithResult(job("a", "hold", unique)).id();
        awaitLatch("a started", started("a"));

        askToStop(s, JobAction.DISCARD, a);
        assertThat(job(s, a).stopRequested()).isEqualTo(JobState.DISCARDED);
        EnqueueResult again = s.enqueueWithResult(job("again", "quick", unique));
        assertThat(again.duplicate()).as("the running job still holds the key").isTrue();
        assertThat(again.id()).isEqualTo(a);
        awaitLatch("a's handler interrupted", interrupted("a"));
        assertThat(s.enqueueWithResult(job("again", "quick", unique)).duplicate()).isTrue();

        release.countDown();
        JobInfo ended = awaitState(s, a, JobState.DISCARDED, WAIT);
        assertThat(last(ended).errorClass()).isEqualTo("Discarded");
        assertThat(last(ended).message()).contains("discarded by an operator while running");
        EnqueueResult after = s.enqueueWithResult(job("after", "quick", unique));
        assertThat(after.duplicate()).as("the key is free once the job ended").isFalse();
        awaitState(s, after.id(), JobState.COMPLETED, WAIT);
        assertThat(started).doesNotContainKey("again");
    }

    @Test
    void aHandlerThatCompletesItsWorkAnywayCompletesTheJob() throws Exception {
        Skipjack s = worker();
        long a = s.enqueueWithResult(job("a", "finish", EnqueueOptions.defaults())).id();
        awaitLatch("a started", started("a"));

        askToStop(s, JobAction.CANCEL, a);
        awaitLatch("a's handler interrupted", interrupted("a"));
        release.countDown();

        JobInfo ended = awaitState(s, a, JobState.COMPLETED, WAIT);
        assertThat(ended.errors()).as("its work was done: nothing to report").isEmpty();
        assertThat(ended.stopRequested()).isNull();
    }

    /** A failure on the last attempt would discard the job; the operator asked for it to be cancelled. */
    @Test
    void aCancelOnTheLastAttemptEndsTheJobCancelledNotDiscarded() throws Exception {
        Skipjack s = worker();
        long a = s.enqueueWithResult(job("a", "hold", EnqueueOptions.defaults().withMaxAttempts(1))).id();
        awaitLatch("a started", started("a"));

        askToStop(s, JobAction.CANCEL, a);
        awaitLatch("a's handler interrupted", interrupted("a"));
        release.countDown();

        JobInfo ended = awaitState(s, a, JobState.CANCELLED, WAIT);
        assertThat(ended.errors()).extracting(JobError::errorClass).containsExactly("Cancelled");
    }

    /** A handler that swallows an interrupt is interrupted again at the next heartbeat. */
    @Test
    void aHandlerThatSwallowsTheInterruptIsInterruptedAgain() throws Exception {
        Skipjack s = worker();
        long a = s.enqueueWithResult(job("a", "stubborn", EnqueueOptions.defaults())).id();
        awaitLatch("a started", started("a"));

        askToStop(s, JobAction.DISCARD, a);

        JobInfo ended = awaitState(s, a, JobState.DISCARDED, WAIT);
        assertThat(last(ended).message()).contains("gave in at its second interrupt");
    }

    /**
     * Its worker shuts down before the handler returned: the job it hands back ends as asked, at
     * once, instead of waiting for a rescue while it holds its keys (no rescuer runs here after).
     */
    @Test
    void aJobAskedToStopEndsAsAskedWhenItsWorkerShutsDownFirst() throws Exception {
        Skipjack s = client(builder().lease(LEASE).shutdownTimeout(Duration.ofMillis(500)).queue("default", 4)
                .handler(WORK, this::run));
        s.start();
        long a = s.enqueueWithResult(job("a", "finish", EnqueueOptions.defaults())).id();
        awaitLatch("a started", started("a"));
        askToStop(s, JobAction.CANCEL, a);
        awaitLatch("a's handler interrupted", interrupted("a"));

        s.stop(Duration.ofMillis(500));

        JobInfo ended = job(client(builder()), a);
        assertThat(ended.state()).as("ended as asked when handed back").isEqualTo(JobState.CANCELLED);
        assertThat(last(ended).message()).contains("cancelled by an operator while running").contains("shut down");
    }

    @Test
    void aWorkflowsJobCancelledWhileRunningCancelsItsDependentsWhenItStops() throws Exception {
        Skipjack s = worker();
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("stopped")
                .add("a", job("a", "hold", EnqueueOptions.defaults()))
                .add("b", job("b", "quick", EnqueueOptions.defaults()), dependsOn("a")));
        awaitLatch("a started", started("a"));

        askToStop(s, JobAction.CANCEL, w.jobId("a"));
        awaitLatch("a's handler interrupted", interrupted("a"));
        WorkflowInfo meanwhile = s.admin().workflow(w.id()).orElseThrow();
        assertThat(meanwhile.step("b").job().state()).as("b waits while a still runs").isEqualTo(JobState.WAITING);
        assertThat(meanwhile.state()).isEqualTo(WorkflowState.RUNNING);

        release.countDown();
        await("the workflow to finish", WAIT, () -> s.admin().workflow(w.id()).orElseThrow().state().isFinished());
        WorkflowInfo done = s.admin().workflow(w.id()).orElseThrow();
        assertThat(done.step("a").job().state()).isEqualTo(JobState.CANCELLED);
        assertThat(done.step("b").job().state()).isEqualTo(JobState.CANCELLED);
        assertThat(done.state()).isEqualTo(WorkflowState.CANCELLED);
        assertThat(started).doesNotContainKey("b");
    }

    /**
     * The worker's outcome reached the database before the worker heard of the request (its
     * handler asked to run again): the job is not sent back to run, and once its lease expires
     * (its worker no longer extends it) the rescue ends it as asked. The next execution of the
     * same job starts without the old request.
     */
    @Test
    void anOutcomeWrittenBeforeTheWorkerHeardOfTheRequestDoesNotRunTheJobAgain() throws Exception {
        Skipjack s = client(builder().kind(WORK));
        long id = s.enqueueWithResult(job("a", "quick", EnqueueOptions.defaults())).id();
        SqlStatements sql = sql();
        ClaimedJob claimed;
        try (Connection c = dataSource.getConnection()) {
            List<ClaimedJob> jobs = new JobClaimer(sql, "unaware", Duration.ofMinutes(5)).claim(c, "default", Set.of(), 10);
            assertThat(jobs).extracting(ClaimedJob::id).containsExactly(id);
            claimed = jobs.get(0);
        }
        assertThat(s.admin().cancel(id)).isTrue();

        try (Connection c = dataSource.getConnection()) {
            int written = new CompletionWriter(sql).write(c, List.of(
                    new Completion(id, claimed.attempt(), "available", 0L, 0, "{\"class\": \"Retry\", \"message\": \"again\"}")));
            assertThat(written).as("an outcome that does not end the job is refused").isZero();
        }
        JobInfo held = job(s, id);
        assertThat(held.state()).isEqualTo(JobState.RUNNING);
        assertThat(held.stopRequested()).isEqualTo(JobState.CANCELLED);

        execute("UPDATE " + jobsTable() + " SET lease_until = " + nowPlus(Duration.ofSeconds(-1)) + " WHERE id = " + id);
        assertThat(new LeaseRescuer(dataSource, sql).rescueAll()).isEqualTo(1);
        JobInfo ended = job(s, id);
        assertThat(ended.state()).as("ended as asked, not retried").isEqualTo(JobState.CANCELLED);
        assertThat(ended.finishedAt()).isNotNull();
        assertThat(last(ended).errorClass()).isEqualTo("LeaseExpired");

        assertThat(s.admin().retry(id)).isTrue();
        try (Connection c = dataSource.getConnection()) {
            assertThat(new JobClaimer(sql, "next", Duration.ofMinutes(5)).claim(c, "default", Set.of(), 10))
                    .extracting(ClaimedJob::id).containsExactly(id);
        }
        assertThat(job(s, id).stopRequested()).as("the request belonged to the earlier execution").isNull();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id = ? AND stop_requested IS NULL", id))
                .isOne();
    }

    /** A worker that died with the job: the rescue ends it as asked instead of running it again. */
    @Test
    void aJobWhoseWorkerIsGoneEndsAsAskedWhenItsLeaseExpires() throws Exception {
        Skipjack s = client(builder().kind(WORK));
        long id = s.enqueueWithResult(job("a", "quick", EnqueueOptions.defaults().withMaxAttempts(5))).id();
        SqlStatements sql = sql();
        try (Connection c = dataSource.getConnection()) {
            assertThat(new JobClaimer(sql, "gone", Duration.ofMinutes(5)).claim(c, "default", Set.of(), 10)).hasSize(1);
        }
        assertThat(s.admin().discard(id)).isTrue();
        execute("UPDATE " + jobsTable() + " SET lease_until = " + nowPlus(Duration.ofSeconds(-1)) + " WHERE id = " + id);

        assertThat(new LeaseRescuer(dataSource, sql).rescueAll()).isEqualTo(1);

        JobInfo ended = job(s, id);
        assertThat(ended.state()).as("attempts were left, yet it is not retried").isEqualTo(JobState.DISCARDED);
        assertThat(ended.finishedAt()).isNotNull();
        assertThat(ended.attempt()).isEqualTo(1);
    }
}
