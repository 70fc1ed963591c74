package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-25: retry, cancel, discard, delete and snooze of one job or of every job a filter matches,
 * checked on the rows with plain SQL, and queue pause and resume honoured by running workers.
 */
class AdminActionsTest extends EveryBackendTest {

    record Args(int userId) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    private Skipjack declaredOnly() {
        return client(builder().kind(JobKind.of("work", Args.class)));
    }

    private String state(long id) {
        return JobRow.load(dataSource, schema, id).state();
    }

    @Test
    void retryOfADiscardedJobMakesItAvailableWithOneMoreAttemptAndAWorkerRunsIt() {
        Skipjack s = client(builder().queue("default", 2).handler(JobKind.of("work", Args.class),
                job -> job.attempt() == 1 ? Outcome.discard("bad input") : Outcome.complete()));
        s.start();
        long id = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));
        await("discarded", WAIT, () -> state(id).equals("discarded"));

        assertThat(s.admin().retry(id)).isTrue();

        JobRow row = JobRow.load(dataSource, schema, id);
        assertThat(row.state()).isIn("available", "running", "completed");
        await("completed after retry", WAIT, () -> state(id).equals("completed"));
        row = JobRow.load(dataSource, schema, id);
        assertThat(row.attempt()).isEqualTo(2);
        assertThat(row.maxAttempts()).isEqualTo(2);
        assertThat(row.errors()).extracting(JobRow.ErrorEntry::message).containsExactly("bad input");
    }

    @Test
    void eachActionChangesOnlyTheStatesItAllows() {
        Skipjack s = declaredOnly();
        SkipjackAdmin admin = s.admin();
        long available = s.enqueue("work", new Args(1));
        long scheduled = s.enqueue("work", new Args(2), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        long completed = s.enqueue("work", new Args(3));
        execute("UPDATE " + jobsTable() + " SET state = 'completed', finished_at = " + nowPlus(Duration.ZERO) + " WHERE id = " + completed);

        assertThat(admin.retry(available)).as("already available").isFalse();
        assertThat(admin.cancel(completed)).as("already finished").isFalse();
        assertThat(admin.snooze(completed, Duration.ofMinutes(1))).isFalse();
        assertThat(admin.retry(999_999)).as("no such job").isFalse();

        assertThat(admin.snooze(available, Duration.ofMinutes(10))).isTrue();
        JobRow snoozed = JobRow.load(dataSource, schema, available);
        assertThat(snoozed.state()).isEqualTo("scheduled");
        assertThat(Duration.between(snoozed.createdAt(), snoozed.runAt()).toMinutes()).isBetween(9L, 10L);

        assertThat(admin.cancel(scheduled)).isTrue();
        assertThat(state(scheduled)).isEqualTo("cancelled");
        assertThat(JobRow.load(dataSource, schema, scheduled).finishedAt()).isNotNull();
        assertThat(admin.discard(available)).isTrue();
        assertThat(state(available)).isEqualTo("discarded");

        assertThat(admin.retry(completed)).isTrue();
        JobRow retried = JobRow.load(dataSource, schema, completed);
        assertThat(retried.state()).isEqualTo("available");
        assertThat(retried.finishedAt()).isNull();

        assertThat(admin.delete(scheduled)).isTrue();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id = ?", scheduled)).isZero();
        assertThat(admin.job(scheduled)).isEmpty();
    }

    /** Cancelled from another client (an operator's CLI or dashboard): the node running it interrupts the handler. */
    @Test
    void cancellingARunningJobFromAnotherClientInterruptsItsHandler() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Skipjack worker = client(builder().lease(Duration.ofSeconds(3)).queue("default", 1)
                .handler(JobKind.of("work", Args.class), job -> {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                    return Outcome.complete();
                }));
        worker.start();
        long id = worker.enqueue("work", new Args(1));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        Skipjack operator = client(builder());
        assertThat(operator.admin().cancel(id)).isTrue();
        assertThat(interrupted.await(WAIT.toSeconds(), TimeUnit.SECONDS))
                .as("handler interrupted at the worker's next heartbeat (a third of the 3 s lease)").isTrue();
        // The interrupted handler's failure is recorded as the cancel the operator asked for.
        await("the job cancelled once its handler returned", WAIT, () -> state(id).equals("cancelled"));
        assertThat(JobRow.load(dataSource, schema, id).errors()).extracting(JobRow.ErrorEntry::errorClass)
                .containsExactly("Cancelled");
        long next = worker.enqueue("work", new Args(2));
        assertThat(started.getCount()).isZero();
        await("the worker to take the next job", WAIT, () -> !state(next).equals("available"));
    }

    @Test
    void filteredRetryTouchesExactlyTheMatchingJobsAcrossBatches() {
        Skipjack s = declaredOnly();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            requests.add(JobRequest.of("work", new Args(i % 3 == 0 ? 42 : i)));
        }
        s.enqueueAll(requests);
        execute("UPDATE " + jobsTable() + " SET state = 'discarded', finished_at = " + nowPlus(Duration.ZERO) + " WHERE id % 2 = 0");
        long expected = queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'discarded' AND " + backend().jsonInt("args", "userId") + " = 42");
        assertThat(expected).isEqualTo(500);
        List<Long> progress = new ArrayList<>();

        long changed = s.admin().act(JobAction.RETRY,
                JobQuery.all().state(JobState.DISCARDED).argsContain("{\"userId\": 42}"), progress::add);

        assertThat(changed).isEqualTo(expected);
        assertThat(progress).isNotEmpty().isSorted().endsWith(expected);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'discarded'"
                + " AND " + backend().jsonInt("args", "userId") + " = 42")).isZero();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'discarded'"))
                .as("discarded jobs of other users untouched").isEqualTo(1_500 - expected);

        long deleted = s.admin().act(JobAction.DELETE, JobQuery.all().state(JobState.DISCARDED));
        assertThat(deleted).isEqualTo(1_500 - expected);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isEqualTo(3_000 - deleted);
    }

    /** A worker node serving the queues 'reports' and 'mail', its handler completing every job. */
    private Skipjack reportsAndMailNode() {
        return client(builder().queue("reports", 2).queue("mail", 2).handler(JobKind.of("work", Args.class), j -> Outcome.complete()));
    }

    /**
     * Enqueues 20 jobs to the paused queue 'reports' (through {@code reportsBy}) and one to 'mail'
     * (through {@code mailBy}); once the mail job completed and two poll intervals passed, the
     * reports jobs must all still be available: the nodes claim on, just not from the paused queue.
     */
    private void assertPausedQueueHeldWhileAnotherRuns(Skipjack reportsBy, Skipjack mailBy) {
        EnqueueOptions reports = EnqueueOptions.defaults().withQueue("reports");
        for (int i = 0; i < 20; i++) {
            reportsBy.enqueue("work", new Args(i), reports);
        }
        long mail = mailBy.enqueue("work", new Args(0), EnqueueOptions.defaults().withQueue("mail"));
        await("the other queue to keep running", WAIT, () -> state(mail).equals("completed"));
        long afterControl = System.nanoTime();
        await("two poll intervals", WAIT, () -> System.nanoTime() - afterControl > Duration.ofMillis(300).toNanos());
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE queue = 'reports' AND state = 'available'"))
                .as("nothing claimed from the paused queue").isEqualTo(20);
    }

    @Test
    void pausedQueueIsNotClaimedOnAnyNodeUntilResumed() {
        Skipjack nodeA = reportsAndMailNode();
        Skipjack nodeB = reportsAndMailNode();
        nodeA.start();
        nodeA.admin().pause("reports"); // the pausing node rereads its pauses at once
        nodeB.start(); // starts with the queue already paused: read before its first claim

        assertPausedQueueHeldWhileAnotherRuns(nodeA, nodeB);
        assertThat(nodeB.admin().pausedQueues()).containsOnlyKeys("reports");

        nodeB.admin().resume("reports");
        await("the paused jobs to run after resume", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE queue = 'reports' AND state = 'completed'") == 20);
        assertThat(nodeA.admin().pausedQueues()).isEmpty();
    }

    /**
     * A pause made by another client (an operator's CLI or dashboard, never started) reaches nodes
     * that are already running and claiming from the queue: each rereads the paused names on its
     * own timer (every 500 ms), so soon after they claim nothing more from it, and a resume from
     * that client lets them take the held jobs. The test gives the nodes two seconds, four of
     * their rounds: the timer shares a small maintenance pool with other tasks, and a loaded
     * machine can delay a round; without the timer they would never see the pause at all.
     */
    @Test
    void aPauseByAnotherClientReachesNodesAlreadyRunning() {
        Skipjack nodeA = reportsAndMailNode();
        Skipjack nodeB = reportsAndMailNode();
        nodeA.start();
        nodeB.start();
        EnqueueOptions reports = EnqueueOptions.defaults().withQueue("reports");
        List<Long> before = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            before.add(nodeA.enqueue("work", new Args(i), reports));
        }
        await("the nodes running the queue before the pause", WAIT, () -> before.stream().allMatch(id -> state(id).equals("completed")));

        Skipjack operator = client(builder().kind(JobKind.of("work", Args.class)));
        operator.admin().pause("reports");
        long pausedAt = System.nanoTime();
        await("four refresh rounds for the pause to reach the running nodes", WAIT,
                () -> System.nanoTime() - pausedAt > Duration.ofSeconds(2).toNanos());

        assertPausedQueueHeldWhileAnotherRuns(operator, operator);

        operator.admin().resume("reports");
        await("the held jobs to run after the resume", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE queue = 'reports' AND state = 'completed'") == 30);
    }
}
