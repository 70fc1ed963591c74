package dev.skipjack;

import java.time.Instant;
import java.util.Objects;

/**
 * One execution of a job, as its handler sees it.
 *
 * @param id          the job's id
 * @param queue       the queue it was claimed from
 * @param kind        the handler's name
 * @param args        the arguments, deserialized to the type registered for the kind
 * @param priority    0 runs first
 * @param attempt     this execution's attempt number, starting at 1
 * @param maxAttempts attempts allowed before the job is discarded
 * @param createdAt   when it was enqueued (database clock)
 * @param workerId    the worker running this execution
 * @param workflow    the job's place in its workflow (F-14): its step and its parents' outputs; null
 *                    for a job outside any workflow
 * @param reporter    where {@link #progress(int, String)} and {@link #log(String)} go: Skipjack's own
 *                    for a job a worker runs; {@link JobReporter#discarding()} when null
 *
 * <h2>Progress and log lines</h2>
 * A handler tells operators how far it got with {@link #progress(int, String)} and appends lines to
 * the job's log with {@link #log(String)}; they see both in {@link SkipjackAdmin#jobLog(long)},
 * {@code skipjack jobs show <id>} and the dashboard's job view. The methods are on the job because
 * the handler already holds it: no new handler signature, no static or thread-local context (a
 * handler may report from threads of its own), and in a unit test a {@code Job} built by hand takes
 * any {@link JobReporter}.
 * <p>
 * Reporting is cheap and never blocks on the database: the call is checked (a bad input throws
 * {@link InvalidReportException} right there) and buffered; the worker writes what was reported
 * about once a second, and whatever is still buffered when the handler returns is written before
 * its outcome, so a line logged just before returning is kept. A job that reports nothing costs
 * nothing. Only the execution that reported writes, guarded by (job, attempt, running), so a stale
 * attempt's handler never writes into a newer attempt's log. Bounds: per attempt the latest
 * {@link Limits#MAX_LOG_LINES} lines, for the latest {@link Limits#MAX_LOG_ATTEMPTS} attempts;
 * lines of {@link Limits#MAX_LOG_LINE_LENGTH} chars, messages of
 * {@link Limits#MAX_PROGRESS_MESSAGE_LENGTH}. Reports made after the handler returned, or after the
 * execution stopped counting (timed out, its lease lost), are dropped, as are those of the last
 * second before such a stop.
 * <p>
 * In transactional and two-phase mode the job's claim is visible only when its transaction
 * commits, so are its reports: they are written in that transaction, with its outcome (kept for a
 * failed attempt too, like its error), and nothing shows while it runs.
 */
public record Job<T>(long id, String queue, String kind, T args, int priority, int attempt, int maxAttempts,
                     Instant createdAt, String workerId, WorkflowContext workflow, JobReporter reporter) {

    public Job {
        if (reporter == null) {
            reporter = JobReporter.discarding();
        }
    }

    /** A job whose reports are dropped (see {@link JobReporter#discarding()}). */
    public Job(long id, String queue, String kind, T args, int priority, int attempt, int maxAttempts,
               Instant createdAt, String workerId, WorkflowContext workflow) {
        this(id, queue, kind, args, priority, attempt, maxAttempts, createdAt, workerId, workflow, null);
    }

    /** A job outside any workflow, whose reports are dropped. */
    public Job(long id, String queue, String kind, T args, int priority, int attempt, int maxAttempts,
               Instant createdAt, String workerId) {
        this(id, queue, kind, args, priority, attempt, maxAttempts, createdAt, workerId, null, null);
    }

    /**
     * Reports how far this execution got, replacing its previous progress: {@code percent} from 0
     * to 100 and an optional short {@code message} (null for none). See the class comment.
     *
     * @throws InvalidReportException when {@code percent} is outside 0-100, or {@code message} is
     *                                longer than {@link Limits#MAX_PROGRESS_MESSAGE_LENGTH} chars or
     *                                holds a line break, U+0000 or a lone surrogate
     */
    public void progress(int percent, String message) {
        Limits.requireProgress(percent, message);
        reporter.progress(percent, message);
    }

    /** {@link #progress(int, String)} without a message. */
    public void progress(int percent) {
        progress(percent, null);
    }

    /**
     * Appends {@code line} to this execution's log, for operators. See the class comment.
     *
     * @throws InvalidReportException when {@code line} is null, longer than
     *                                {@link Limits#MAX_LOG_LINE_LENGTH} chars, or holds a line break,
     *                                U+0000 or a lone surrogate
     */
    public void log(String line) {
        reporter.log(Limits.requireLogLine(line));
    }

    /**
     * The output the parent step {@code parentStep} recorded with {@link Outcome#complete(Object)},
     * read as {@code type}; null when it recorded none. Same as {@code workflow().parentOutput(...)}.
     *
     * @throws IllegalStateException    when this job is not part of a workflow
     * @throws IllegalArgumentException when {@code parentStep} is not one of its parents, or its output
     *                                  does not read as {@code type}
     */
    public <R> R parentOutput(String parentStep, Class<R> type) {
        if (workflow == null) {
            throw new IllegalStateException("job " + id + " is not part of a workflow: it has no parents");
        }
        return workflow.parentOutput(Objects.requireNonNull(parentStep, "parentStep"), Objects.requireNonNull(type, "type"));
    }

    /** True when this is the last attempt the job has. */
    public boolean isLastAttempt() {
        return attempt >= maxAttempts;
    }
}
