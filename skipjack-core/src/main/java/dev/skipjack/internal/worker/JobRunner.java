package dev.skipjack.internal.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.Job;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.complete.Completion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs claimed jobs: resolves the kind, deserializes the args, calls the handler under its timeout
 * and records the outcome. Whatever the handler or the row does, this never throws to its caller.
 */
final class JobRunner {

    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

    private final WorkerContext ctx;
    private final OutcomeTranslator translator;

    JobRunner(WorkerContext ctx) {
        this.ctx = ctx;
        this.translator = new OutcomeTranslator(ctx.mapper());
    }

    /** Lease mode: the job is committed as running; its outcome goes to the batch completer. */
    void runLeased(ClaimedJob claimed, Execution execution) {
        Completion completion = execute(claimed, execution, null);
        if (completion != null && execution.settle()) {
            ctx.completer().submit(execution, completion);
        }
    }

    /**
     * Transactional mode: claims at most one job in a new transaction, runs it there and commits.
     * Returns false when there was nothing to claim.
     */
    boolean runOneTransactional(String queue, Set<String> transactionalKinds) {
        try (Connection c = ctx.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                List<ClaimedJob> claimed = ctx.claimer().claimTransactional(c, queue, transactionalKinds, 1);
                if (claimed.isEmpty()) {
                    c.commit();
                    return false;
                }
                runInTransaction(c, claimed.get(0));
                return true;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                resetQuietly(c);
            }
        } catch (SQLException | RuntimeException e) {
            // The transaction rolled back: the job, if one was claimed, is available again unchanged.
            log.warn("transactional job on queue {} rolled back: {}", queue, e.toString());
            return true;
        }
    }

    private void runInTransaction(Connection c, ClaimedJob claimed) throws SQLException {
        Execution execution = ctx.tracker().start(claimed.id(), claimed.attempt(), true);
        execution.bindConnection(c);
        try {
            Savepoint beforeHandler = c.setSavepoint();
            RegisteredKind kind = ctx.kinds().get(claimed.kind());
            if (kind != null && kind.options().timeout() != null) {
                try (PreparedStatement ps = c.prepareStatement("SELECT set_config('statement_timeout', ?, true)")) {
                    ps.setString(1, Long.toString(kind.options().timeout().toMillis()));
                    ps.execute();
                }
            }
            Completion completion = execute(claimed, execution, c);
            if (completion == null || !execution.settle()) {
                // Shutdown took this execution over; roll back so the job is available at once.
                c.rollback();
                return;
            }
            if (completion.isPlainCompletion()) {
                try {
                    ctx.writer().write(c, List.of(completion));
                } catch (SQLException e) {
                    // The handler left its transaction unusable (e.g. it swallowed a failed
                    // statement): count the attempt as failed instead of retrying it for free forever.
                    KindOptions options = kindOptions(claimed);
                    completion = translator.fromFailure(claimed, "TransactionAborted",
                            "the handler's transaction could not complete the job: " + e.getMessage(), e, options,
                            ctx.workerId());
                }
            }
            if (!completion.isPlainCompletion()) {
                // Only a completed job keeps the handler's writes.
                c.rollback(beforeHandler);
                ctx.writer().write(c, List.of(completion));
            }
            c.commit();
        } finally {
            execution.bindConnection(null);
            ctx.tracker().finish(execution);
        }
    }

    /**
     * Runs the handler for one execution; returns the completion to record, or null when the job
     * cannot be run on this connection mode (never happens for a correctly routed job).
     */
    private Completion execute(ClaimedJob claimed, Execution execution, Connection tx) {
        RegisteredKind kind = ctx.kinds().get(claimed.kind());
        String workerId = ctx.workerId();
        if (kind == null || !kind.isRunnable()) {
            // Another deployment may know this kind (rolling deploy), so this counts as a failed
            // attempt and is retried; out of attempts, it is discarded with this reason.
            return translator.fromFailure(claimed, "UnknownKind",
                    "no handler registered for kind '" + claimed.kind() + "' on worker " + workerId,
                    null, KindOptions.defaults(), workerId);
        }
        Object args;
        try {
            args = ctx.mapper().readValue(claimed.argsJson(), kind.argsType());
        } catch (Exception e) {
            return translator.discard(claimed, "InvalidArgs",
                    "args do not deserialize to " + kind.argsType().getTypeName() + ": " + e.getMessage(), e, workerId);
        }
        if (kind.isTransactional() != (tx != null)) {
            return translator.fromFailure(claimed, "WrongMode",
                    "kind '" + claimed.kind() + "' was claimed in the wrong mode", null, kind.options(), workerId);
        }
        Job<Object> job = new Job<>(claimed.id(), claimed.queue(), claimed.kind(), args, claimed.priority(),
                claimed.attempt(), claimed.maxAttempts(), claimed.createdAt(), workerId);
        ScheduledFuture<?> watchdog = scheduleTimeout(execution, kind, claimed, tx == null);
        execution.bindThread(Thread.currentThread());
        try {
            Outcome outcome = tx == null ? kind.handler().handle(job) : kind.transactionalHandler().handle(job, tx);
            return translator.fromOutcome(claimed, outcome, kind.options(), workerId);
        } catch (Throwable t) {
            if (execution.timedOut()) {
                return translator.fromFailure(claimed, "JobTimeout", timeoutMessage(kind), t, kind.options(), workerId);
            }
            return translator.fromFailure(claimed, t.getClass().getName(), String.valueOf(t.getMessage()), t,
                    kind.options(), workerId);
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
        return ctx.timers().schedule(() -> {
            execution.markTimedOut();
            if (leased && execution.settle()) {
                // Record the failure now: a handler that ignores the interrupt must not keep the job.
                ctx.completer().submit(execution, translator.fromFailure(claimed, "JobTimeout", timeoutMessage(kind),
                        null, kind.options(), ctx.workerId()));
            }
            execution.interrupt();
        }, kind.options().timeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    private KindOptions kindOptions(ClaimedJob claimed) {
        RegisteredKind kind = ctx.kinds().get(claimed.kind());
        return kind == null ? KindOptions.defaults() : kind.options();
    }

    private static String timeoutMessage(RegisteredKind kind) {
        return "handler ran longer than its timeout of " + kind.options().timeout() + " and was interrupted";
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // The connection is broken; closing it ends the transaction on the server.
        }
    }

    private static void resetQuietly(Connection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException ignored) {
            // Broken connections are discarded by the pool.
        }
    }
}
