package dev.skipjack.internal.worker;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.skipjack.Job;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.SkipjackListener;
import dev.skipjack.WorkflowContext;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.kind.RegisteredKind;
import dev.skipjack.internal.observe.InterceptorChain;
import dev.skipjack.internal.observe.ListenerFanOut;
import dev.skipjack.internal.workflow.WorkflowContexts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The execute step of a job's path, for every execution mode: resolves the kind, deserializes the
 * args, calls the handler under its timeout and turns what happened into a {@link Completion}.
 * Whatever the handler or the row does, this never throws to its caller.
 */
final class JobExecutor {

    private static final Logger log = LoggerFactory.getLogger(JobExecutor.class);

    /**
     * In transactional mode the server's statement_timeout stops a hung statement cleanly at the
     * kind's timeout; the interrupt, which can break the connection, comes this much later and
     * only for handlers stuck outside the database.
     */
    static final long TRANSACTIONAL_INTERRUPT_GRACE_MILLIS = 1_000;

    private final Map<String, RegisteredKind> kinds;
    private final ObjectMapper mapper;
    private final OutcomeTranslator translator;
    private final LeasedCompletions completions;
    /** Runs handler timeouts only. */
    private final ScheduledExecutorService timers;
    private final String workerId;
    /** Reads a workflow job's parents' outputs before it runs. */
    private final WorkflowContexts workflowContexts;
    /** Writes what handlers report (Job.progress, Job.log). */
    private final ReportWriter reports;
    /** Readers of the kinds' args types: resolved once, not on every job. */
    private final Map<JavaType, ObjectReader> readers = new ConcurrentHashMap<>();
    /** Told when a job starts and how its run ended (SkipjackListener). */
    private final ListenerFanOut listeners;
    /** Wrap each run of a handler (JobInterceptor), given the context stored at enqueue. */
    private final InterceptorChain interceptors;

    JobExecutor(Map<String, RegisteredKind> kinds, ObjectMapper mapper, OutcomeTranslator translator,
                LeasedCompletions completions, ScheduledExecutorService timers, String workerId,
                WorkflowContexts workflowContexts, ReportWriter reports, ListenerFanOut listeners,
                InterceptorChain interceptors) {
        this.listeners = listeners;
        this.interceptors = interceptors;
        this.kinds = kinds;
        this.mapper = mapper;
        this.translator = translator;
        this.completions = completions;
        this.timers = timers;
        this.workerId = workerId;
        this.workflowContexts = workflowContexts;
        this.reports = reports;
    }

    /**
     * A plain lookup first: this runs for every job, and computeIfAbsent (several times larger for
     * the JIT to compile) is only needed the first time.
     */
    private ObjectReader readerOf(JavaType argsType) {
        ObjectReader reader = readers.get(argsType);
        return reader != null ? reader : readers.computeIfAbsent(argsType, mapper::readerFor);
    }

    /** Lease mode: the job is committed as running; its outcome is recorded unless another party settled it first. */
    void runLeased(ClaimedJob claimed, Execution execution) {
        Completion completion = execute(claimed, execution, null);
        ExecutionReports reported = execution.reports();
        if (reported != null && reports != null) {
            if (execution.isSettled()) {
                // Timed out or abandoned: its outcome is another party's, and so is the job now.
                reported.close();
            } else {
                // Before the outcome: once it is written, the (id, attempt, running) guard refuses them.
                reports.flushLast(reported);
            }
        }
        completions.settle(execution, completion);
    }

    /**
     * Runs the handler for one execution and returns the completion to record; {@code tx} is the
     * job's own transaction in transactional mode, null in lease mode. Never throws.
     */
    Completion execute(ClaimedJob claimed, Execution execution, Connection tx) {
        if (!listeners.active()) {
            return executeOrFail(claimed, execution, tx);
        }
        long startedAt = System.nanoTime();
        listeners.jobStarted(claimed.queue(), claimed.kind(), claimed.attempt(), queueWait(claimed));
        Completion completion = executeOrFail(claimed, execution, tx);
        listeners.jobFinished(claimed.queue(), claimed.kind(), claimed.attempt(), resultOf(completion),
                Duration.ofNanos(System.nanoTime() - startedAt));
        return completion;
    }

    private Completion executeOrFail(ClaimedJob claimed, Execution execution, Connection tx) {
        try {
            return executeHandler(claimed, execution, tx);
        } catch (Throwable t) {
            // A bug of ours or an exception whose methods throw: the job must still get an outcome.
            log.error("recording the outcome of job {} failed; recording a failed attempt", claimed.id(), t);
            return translator.fromFailure(claimed, "InternalError", OutcomeTranslator.messageOf(t), null,
                    KindOptions.defaults(), workerId);
        }
    }

    /**
     * How long the job was due before it starts: this JVM's clock minus its run_at on the
     * database clock. The clocks may differ a little, so a start "before" the due time counts as
     * no wait.
     */
    static Duration queueWait(ClaimedJob claimed) {
        long nowMicros = Math.multiplyExact(System.currentTimeMillis(), 1_000L);
        return Duration.ofNanos(Math.max(0L, nowMicros - claimed.runAtMicros()) * 1_000L);
    }

    /** The listener's name for a completion: its next state, and for a job that runs again, whether an attempt failed. */
    static SkipjackListener.JobResult resultOf(Completion c) {
        switch (c.state()) {
            case "completed":
                return SkipjackListener.JobResult.COMPLETED;
            case "discarded":
                return SkipjackListener.JobResult.DISCARDED;
            case "cancelled":
                return SkipjackListener.JobResult.CANCELLED;
            default:
                // Runs again (available, scheduled, retryable, or waiting for a rate-limited key's
                // slot): a failed attempt records an error, a snooze does not.
                return c.errorJson() != null ? SkipjackListener.JobResult.FAILED : SkipjackListener.JobResult.SNOOZED;
        }
    }

    private Completion executeHandler(ClaimedJob claimed, Execution execution, Connection tx) {
        RegisteredKind kind = kinds.get(claimed.kind());
        if (kind == null || !kind.mode().runnable()) {
            // Another deployment may know this kind (rolling deploy), so this counts as a failed
            // attempt and is retried; out of attempts, it is discarded with this reason.
            return translator.fromFailure(claimed, "UnknownKind",
                    "no handler registered for kind '" + claimed.kind() + "' on worker " + workerId,
                    null, KindOptions.defaults(), workerId);
        }
        Object args;
        try {
            args = readerOf(kind.argsType()).readValue(claimed.argsJson());
            if (args == null) {
                // JSON null reads as null without an error; enqueue never stores it, and no handler expects it.
                throw new IllegalArgumentException("args are JSON null");
            }
        } catch (Exception e) {
            return translator.discard(claimed, "InvalidArgs",
                    "args do not deserialize to " + kind.argsType().getTypeName() + ": " + e.getMessage(), e, workerId);
        }
        if (kind.mode().claimedInTransaction() != (tx != null)) {
            return translator.fromFailure(claimed, "WrongMode",
                    "kind '" + claimed.kind() + "' was claimed in the wrong mode", null, kind.options(), workerId);
        }
        WorkflowContext workflow = null;
        if (claimed.workflowId() != null) {
            try {
                workflow = workflowContexts.load(tx, claimed.id(), claimed.workflowId(), claimed.workflowStep());
            } catch (SQLException e) {
                return translator.fromFailure(claimed, "WorkflowContextUnreadable",
                        "the outputs of the job's parents could not be read: " + e.getMessage(), e, kind.options(), workerId);
            }
        }
        ExecutionReports reporter = new ExecutionReports(claimed.id(), claimed.attempt());
        execution.bindReports(reporter);
        Job<Object> job = new Job<>(claimed.id(), claimed.queue(), claimed.kind(), args, claimed.priority(),
                claimed.attempt(), claimed.maxAttempts(), claimed.createdAt(), workerId, workflow, reporter);
        execution.bindJob(job);
        ScheduledFuture<?> watchdog = scheduleTimeout(execution, kind, claimed, tx == null);
        execution.bindThread(Thread.currentThread());
        try {
            if (tx == null && execution.isSettled()) {
                // Abandoned (its lease could not be vouched for: the lease watchdog), or timed out,
                // after the dispatcher checked and before this thread was bound, so the interrupt
                // found no thread to stop. The job is not ours to run any more: another worker may
                // hold it. The completion is dropped, as for any settled execution.
                return translator.fromFailure(claimed, "Abandoned",
                        "not started: the execution was settled before its handler began", null, kind.options(),
                        workerId);
            }
            if (execution.stopRequested() != null) {
                // An operator cancelled or discarded it while it waited in this worker's buffer:
                // the heartbeat's interrupt found no thread, and the handler never starts.
                return translator.stopped(claimed, execution.stopRequested(), "before its handler started", workerId);
            }
            Outcome outcome;
            try (JobMdc ignored = JobMdc.put(claimed)) {
                outcome = interceptors.active()
                        ? interceptors.around(job, claimed.traceContext(), () -> kind.mode().invoke(job, tx))
                        : kind.mode().invoke(job, tx);
            }
            return translator.fromOutcome(claimed, outcome, kind.options(), workerId);
        } catch (Throwable t) {
            execution.handlerThrew(t);
            if (execution.timedOut() || (tx != null && kind.options().timeout() != null && isStatementTimeout(t))) {
                return translator.fromFailure(claimed, "JobTimeout", timeoutMessage(kind), t, kind.options(), workerId);
            }
            return translator.fromThrowable(claimed, t, kind.options(), workerId);
        } finally {
            execution.unbindThread();
            if (watchdog != null) {
                watchdog.cancel(false);
            }
            Thread.interrupted(); // do not leak an interrupt meant for the handler to the next job
        }
    }

    private ScheduledFuture<?> scheduleTimeout(Execution execution, RegisteredKind kind, ClaimedJob claimed, boolean leased) {
        if (kind.options().timeout() == null) {
            return null;
        }
        long delay = kind.options().timeout().toMillis() + (leased ? 0 : TRANSACTIONAL_INTERRUPT_GRACE_MILLIS);
        return timers.schedule(() -> {
            execution.markTimedOut();
            if (leased) {
                // Record the failure now: a handler that ignores the interrupt must not keep the job.
                Completion timedOut = translator.fromFailure(claimed, "JobTimeout", timeoutMessage(kind), null,
                        kind.options(), workerId);
                completions.settle(execution, timedOut);
            }
            execution.interrupt();
        }, delay, TimeUnit.MILLISECONDS);
    }

    /**
     * True when the server cancelled a statement (SQLSTATE 57014), which in transactional mode is
     * the kind's timeout enforced through statement_timeout, before the interrupt is due.
     */
    private static boolean isStatementTimeout(Throwable t) {
        return SqlCauses.any(t, e -> "57014".equals(e.getSQLState()));
    }

    /** The options of the claimed job's kind; the defaults for a kind this process does not know. */
    KindOptions kindOptions(ClaimedJob claimed) {
        RegisteredKind kind = kinds.get(claimed.kind());
        return kind == null ? KindOptions.defaults() : kind.options();
    }

    private static String timeoutMessage(RegisteredKind kind) {
        return "handler ran longer than its timeout of " + kind.options().timeout() + " and was interrupted";
    }
}
