package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.LogCapture;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 12, item 6: a handler reports progress and log lines; operators see them while the job runs
 * and after it ended; they go with the job; bad input is refused where it is given, and never
 * reaches a worker loop; a handler whose job another worker took over writes nothing into the newer
 * attempt. The statements' guard against stale attempts and the bounds are in
 * {@code internal.worker.ReportWriterTest}.
 */
class JobReportsTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final JobKind<Args> REPORTING = JobKind.of("reporting", Args.class);
    private static final KindOptions NO_BACKOFF = KindOptions.defaults().withRetryPolicy(attempt -> Duration.ZERO);

    @Test
    void reportsAreVisibleWhileTheJobRunsAndAfterItCompleted() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Skipjack s = client(builder().queue("default", 2).handler(REPORTING, job -> {
            job.log("started " + job.args().n());
            job.progress(40, "halfway: 4 of 10 files");
            if (!release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            job.log("naïve ünïcode, and a tab:\there");
            job.progress(100);
            job.log("the last line, just before returning");
            return Outcome.complete();
        }));
        long id = s.enqueue(REPORTING, new Args(7));
        s.start();

        await("the running job's first reports", WAIT, () -> {
            JobLog log = s.admin().jobLog(id);
            return log.progress() != null && !log.lines().isEmpty();
        });
        JobLog running = s.admin().jobLog(id);
        assertThat(s.find(id).orElseThrow().state()).as("visible while it runs").isEqualTo(JobState.RUNNING);
        assertThat(running.lines()).extracting(JobLog.Line::text).containsExactly("started 7");
        assertThat(running.lines().get(0).attempt()).isEqualTo(1);
        assertThat(running.lines().get(0).number()).isEqualTo(1);
        assertThat(running.lines().get(0).loggedAt()).isAfter(Instant.now().minus(Duration.ofMinutes(5)));
        assertThat(running.progress().percent()).isEqualTo(40);
        assertThat(running.progress().message()).isEqualTo("halfway: 4 of 10 files");
        assertThat(running.progress().attempt()).isEqualTo(1);

        release.countDown();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        JobLog done = s.admin().jobLog(id);
        assertThat(done.lines()).extracting(JobLog.Line::text).as("nothing lost, the last line included, in order")
                .containsExactly("started 7", "naïve ünïcode, and a tab:\there", "the last line, just before returning");
        assertThat(done.lines()).extracting(JobLog.Line::number).containsExactly(1, 2, 3);
        assertThat(done.progress().percent()).isEqualTo(100);
        assertThat(done.progress().message()).isNull();
    }

    @Test
    void aHandlerWhoseJobWasTakenOverWritesNothingIntoTheNewerAttempt() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        Skipjack s = client(builder().lease(Duration.ofSeconds(1)).queue("default", 2).handler(REPORTING, job -> {
            job.log("attempt " + job.attempt() + " started");
            started.countDown();
            // Deaf to the interrupt, as a handler stuck in a library can be.
            while (true) {
                try {
                    if (release.await(30, TimeUnit.SECONDS)) {
                        break;
                    }
                } catch (InterruptedException ignored) {
                    // keeps running
                }
            }
            job.log("stale line of attempt " + job.attempt());
            job.progress(99, "stale");
            returned.countDown();
            return Outcome.complete();
        }));
        long id = s.enqueue(REPORTING, new Args(1));
        try (LogCapture log = new LogCapture()) {
            s.start();
            assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
            await("the first line", WAIT, () -> s.admin().jobLog(id).lines().size() == 1);
            // Another worker holds the job now as attempt 2, as after a rescue and a new claim.
            execute("UPDATE " + jobsTable() + " SET attempt = attempt + 1, claimed_by = 'another-worker', lease_until = "
                    + nowPlus(Duration.ofMinutes(10)) + " WHERE id = " + id);
            await("this worker to give the execution up", WAIT,
                    () -> !log.linesContaining("job " + id + " attempt 1 no longer counts here").isEmpty());
            release.countDown();
            assertThat(returned.await(20, TimeUnit.SECONDS)).isTrue();
        }
        // Its outcome is refused too: the job stays with the other worker's attempt.
        awaitState(s, id, JobState.RUNNING, WAIT);
        JobLog log = s.admin().jobLog(id);
        assertThat(log.lines()).extracting(JobLog.Line::attempt, JobLog.Line::text)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "attempt 1 started"));
        assertThat(log.progress()).isNull();
        assertThat(s.find(id).orElseThrow().attempt()).isEqualTo(2);
    }

    @Test
    void aJobThatReportsNothingHasAnEmptyLogAndSoHasAnUnknownJob() {
        Skipjack s = client(builder().queue("default", 2).handler(REPORTING, job -> Outcome.complete()));
        long id = s.enqueue(REPORTING, new Args(1));
        s.start();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        assertThat(s.admin().jobLog(id)).isEqualTo(new JobLog(id, null, List.of()));
        assertThat(s.admin().jobLog(id + 1_000)).isEqualTo(new JobLog(id + 1_000, null, List.of()));
        assertThat(count("skipjack_job_logs") + count("skipjack_job_progress")).as("no row written").isZero();
    }

    @Test
    void eachAttemptKeepsItsOwnLinesAndTheLatestProgressWins() {
        Skipjack s = client(builder().queue("default", 2).handler(REPORTING, NO_BACKOFF, job -> {
            job.log("attempt " + job.attempt());
            job.progress(job.attempt() * 10, "try " + job.attempt());
            if (job.attempt() < 3) {
                throw new IllegalStateException("not yet");
            }
            return Outcome.complete();
        }));
        long id = s.enqueue(REPORTING, new Args(1));
        s.start();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        JobLog log = s.admin().jobLog(id);
        assertThat(log.lines()).extracting(JobLog.Line::attempt, JobLog.Line::text).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1, "attempt 1"),
                org.assertj.core.groups.Tuple.tuple(2, "attempt 2"),
                org.assertj.core.groups.Tuple.tuple(3, "attempt 3"));
        assertThat(log.progress()).extracting(JobLog.Progress::attempt, JobLog.Progress::percent, JobLog.Progress::message)
                .containsExactly(3, 30, "try 3");
    }

    @Test
    void reportsGoWithTheirJobWhenItIsPrunedOrDeleted() {
        DatabaseClock clock = new DatabaseClock();
        Skipjack s = client(builder().clock(clock).queue("default", 2).pruneInterval(Duration.ofMillis(100))
                .retention(JobState.COMPLETED, Duration.ofHours(1))
                .retention(JobState.DISCARDED, Skipjack.KEEP_FOREVER)
                .handler(REPORTING, job -> {
                    job.log("line of " + job.args().n());
                    job.progress(100, "done");
                    return job.args().n() == 2 ? Outcome.discard("kept for the operator to delete") : Outcome.complete();
                }));
        long pruned = s.enqueue(REPORTING, new Args(1));
        long deleted = s.enqueue(REPORTING, new Args(2));
        s.start();
        awaitState(s, pruned, JobState.COMPLETED, WAIT);
        awaitState(s, deleted, JobState.DISCARDED, WAIT);
        assertThat(s.admin().jobLog(pruned).lines()).hasSize(1);
        assertThat(s.admin().jobLog(deleted).lines()).hasSize(1);

        clock.advance(Duration.ofHours(2));
        await("the completed job to be pruned", WAIT, () -> s.find(pruned).isEmpty());
        assertThat(s.admin().jobLog(pruned)).isEqualTo(new JobLog(pruned, null, List.of()));
        assertThat(s.admin().delete(deleted)).isTrue();
        assertThat(s.admin().jobLog(deleted)).isEqualTo(new JobLog(deleted, null, List.of()));
        assertThat(count("skipjack_job_logs") + count("skipjack_job_progress")).as("no row left behind").isZero();
    }

    @Test
    void reportsGoWithAWorkflowsJobsWhenItsRetentionDeletesThem() {
        DatabaseClock clock = new DatabaseClock();
        Skipjack s = client(builder().clock(clock).queue("default", 2).pruneInterval(Duration.ofMillis(100))
                .retention(JobState.COMPLETED, Duration.ofHours(1))
                .handler(REPORTING, job -> {
                    job.log("step " + job.args().n());
                    job.progress(100);
                    return Outcome.complete();
                }));
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("reported")
                .add("a", JobRequest.of(REPORTING, new Args(1)))
                .add("b", JobRequest.of(REPORTING, new Args(2)), Workflow.dependsOn("a")));
        s.start();
        await("the workflow to complete", WAIT,
                () -> s.admin().workflow(w.id()).orElseThrow().state() == WorkflowState.COMPLETED);
        assertThat(count("skipjack_job_logs")).isEqualTo(2);
        assertThat(count("skipjack_job_progress")).isEqualTo(2);

        clock.advance(Duration.ofHours(2));
        await("the workflow to be deleted", WAIT, () -> s.admin().workflow(w.id()).isEmpty());
        assertThat(count("skipjack_job_logs") + count("skipjack_job_progress")).as("no row left behind").isZero();
    }

    @Test
    void badInputIsRefusedWhereItIsGivenAndNeverStopsTheWorker() {
        List<String> refused = new CopyOnWriteArrayList<>();
        JobKind<Args> careless = JobKind.of("careless", Args.class);
        Skipjack s = client(builder().queue("default", 2)
                .handler(REPORTING, job -> {
                    for (Runnable bad : badReports(job)) {
                        try {
                            bad.run();
                        } catch (InvalidReportException e) {
                            refused.add(e.getMessage());
                        }
                    }
                    job.log("still fine");
                    return Outcome.complete();
                })
                .handler(careless, job -> {
                    job.log("x".repeat(Limits.MAX_LOG_LINE_LENGTH + 1)); // not caught: fails the attempt
                    return Outcome.complete();
                }));
        long failing = s.enqueue(careless, new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));
        long fine = s.enqueue(REPORTING, new Args(1));
        s.start();
        JobInfo discarded = awaitState(s, failing, JobState.DISCARDED, WAIT);
        assertThat(discarded.errors()).hasSize(1);
        assertThat(discarded.errors().get(0).toString()).contains("InvalidReportException").contains("too long");
        awaitState(s, fine, JobState.COMPLETED, WAIT);
        assertThat(refused).hasSize(badReports(null).size());
        assertThat(s.admin().jobLog(fine).lines()).extracting(JobLog.Line::text).containsExactly("still fine");
        assertThat(s.admin().jobLog(fine).progress()).as("no bad progress recorded").isNull();

        long after = s.enqueue(REPORTING, new Args(2));
        awaitState(s, after, JobState.COMPLETED, WAIT);
    }

    private static List<Runnable> badReports(Job<Args> job) {
        List<Runnable> bad = new ArrayList<>();
        bad.add(() -> job.log(null));
        bad.add(() -> job.log("x".repeat(Limits.MAX_LOG_LINE_LENGTH + 1)));
        bad.add(() -> job.log("nul \u0000 inside"));
        bad.add(() -> job.log("two\nlines"));
        bad.add(() -> job.log("lone \uD800 surrogate"));
        bad.add(() -> job.progress(-1));
        bad.add(() -> job.progress(101, "too far"));
        bad.add(() -> job.progress(50, "m".repeat(Limits.MAX_PROGRESS_MESSAGE_LENGTH + 1)));
        bad.add(() -> job.progress(50, "nul \u0000"));
        return bad;
    }

    @Test
    void aTransactionalJobsReportsCommitWithItsOutcome() {
        JobKind<Args> inTx = JobKind.of("in-tx", Args.class);
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(inTx, NO_BACKOFF, (job, tx) -> {
            job.log("in the transaction " + job.attempt());
            job.progress(job.attempt() == 1 ? 20 : 100);
            if (job.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
            return Outcome.complete();
        }));
        long id = s.enqueue(inTx, new Args(1));
        s.start();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        JobLog log = s.admin().jobLog(id);
        assertThat(log.lines()).extracting(JobLog.Line::text)
                .as("kept with the failed attempt's outcome too").containsExactly("in the transaction 1", "in the transaction 2");
        assertThat(log.progress().percent()).isEqualTo(100);
    }

    @Test
    void aJobBuiltByHandValidatesAndHandsReportsToItsReporter() {
        List<String> seen = new ArrayList<>();
        Job<Args> job = new Job<>(1, "q", "k", new Args(1), 0, 1, 1, Instant.now(), "w", null, new JobReporter() {
            @Override
            public void progress(int percent, String message) {
                seen.add(percent + ":" + message);
            }

            @Override
            public void log(String line) {
                seen.add(line);
            }
        });
        job.progress(5, "go");
        job.log("a line");
        assertThatThrownBy(() -> job.progress(200)).isInstanceOf(InvalidReportException.class).hasMessageContaining("0 to 100");
        assertThat(seen).containsExactly("5:go", "a line");
        Job<Args> plain = new Job<>(1, "q", "k", new Args(1), 0, 1, 1, Instant.now(), "w");
        assertThat(plain.reporter()).isSameAs(JobReporter.discarding());
        plain.log("dropped");
        assertThatThrownBy(() -> plain.log(null)).isInstanceOf(InvalidReportException.class).hasMessageContaining("null");
    }

    private long count(String table) {
        return queryLong("SELECT count(*) FROM " + table(table));
    }
}
