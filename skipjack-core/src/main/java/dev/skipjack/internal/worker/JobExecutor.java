package dev.skipjack.internal.worker;

import dev.skipjack.internal.kind.RegisteredKind;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.skipjack.Job;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.sql.Capability;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs claimed jobs: resolves the kind, deserializes the args, calls the handler under its timeout
 * and records the outcome. Whatever the handler or the row does, this never throws to its caller.
 */
final class JobExecutor {

    private static final Logger log = LoggerFactory.getLogger(JobExecutor.class);

    /**
     * In transactional mode the server's statement_timeout stops a hung statement cleanly at the
     * kind's timeout; the interrupt, which can break the connection, comes this much later and
     * only for handlers stuck outside the database.
     */
    static final long TRANSACTIONAL_INTERRUPT_GRACE_MILLIS = 1_000;

    private final WorkerContext ctx;
    /** Readers of the kinds' args types: resolved once, not on every job. */
    private final Map<JavaType, ObjectReader> readers = new ConcurrentHashMap<>();
    private final OutcomeTranslator translator;

    JobExecutor(WorkerContext ctx) {
        this.ctx = ctx;
        this.translator = ctx.translator();
    }

    /** Lease mode: the job is committed as running; its outcome goes to the batch completer. */
    void runLeased(ClaimedJob claimed, Execution execution) {
        Completion completion = execute(claimed, execution, null);
        if (execution.settle()) {
            ctx.completer().submit(execution, completion);
        }
    }

    /**
     * Transactional mode: claims at most one job in a new transaction, runs it there and commits.
     * Returns false when there was nothing to claim.
     */
    boolean runOneTransactional(String queue, Set<String> transactionalKinds) {
        ClaimedJob claimed = null;
        Completion lost = null;
        try (Connection c = ctx.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                List<ClaimedJob> jobs = ctx.claimer().claimTransactional(c, queue, transactionalKinds, 1);
                if (jobs.isEmpty()) {
                    c.commit();
                    return false;
                }
                claimed = jobs.get(0);
                lost = runInTransaction(c, claimed);
            } catch (Throwable t) {
                rollbackQuietly(c);
                if (claimed != null) {
                    lost = translator.fromFailure(claimed, "TransactionLost",
                            "the job's transaction was lost before it committed: " + OutcomeTranslator.messageOf(t), t,
                            kindOptions(claimed), ctx.workerId());
                }
            } finally {
                // Only now: with a transaction still open, setAutoCommit(true) would commit it.
                resetQuietly(c);
            }
        } catch (Throwable t) {
            log.warn("transactional job on queue {} rolled back: {}", queue, t.toString());
        }
        if (lost != null) {
            recordLostAttempt(lost);
        }
        return true;
    }

    /**
     * Runs one claimed job in its transaction and commits. Returns null when the outcome committed
     * (or shutdown took the job over), or the completion to record for a transaction that was lost.
     */
    private Completion runInTransaction(Connection c, ClaimedJob claimed) throws SQLException {
        Execution execution = ctx.tracker().start(claimed.queue(), claimed.id(), claimed.attempt(), true, Long.MAX_VALUE);
        execution.bindConnection(c);
        try {
            Savepoint beforeHandler = c.setSavepoint();
            KindOptions options = kindOptions(claimed);
            // Without a transaction-scoped server timeout the interrupt and watchdog enforce it alone.
            if (options.timeout() != null && ctx.sql().dialect().supports(Capability.STATEMENT_TIMEOUT)) {
                try (PreparedStatement ps = c.prepareStatement(ctx.sql().get("set_statement_timeout"))) {
                    ps.setString(1, Long.toString(Math.max(1, options.timeout().toMillis())));
                    ps.execute();
                }
            }
            Completion completion = execute(claimed, execution, HandlerConnection.wrap(c));
            if (!execution.settle()) {
                // Shutdown took this execution over; roll back so the job is available at once.
                c.rollback();
                return null;
            }
            if (completion.isPlainCompletion()) {
                try {
                    if (ctx.writer().write(c, List.of(completion)) != 1) {
                        throw new SQLException("the job's claim is no longer in its transaction");
                    }
                } catch (SQLException e) {
                    // The handler left its transaction unusable (e.g. it swallowed a failed
                    // statement): count the attempt as failed instead of retrying it for free forever.
                    completion = translator.fromFailure(claimed, "TransactionAborted",
                            "the handler's transaction could not complete the job: " + e.getMessage(), e, options,
                            ctx.workerId());
                }
            }
            if (!completion.isPlainCompletion()) {
                try {
                    // Only a completed job keeps the handler's writes.
                    c.rollback(beforeHandler);
                    ctx.writer().write(c, List.of(completion));
                } catch (SQLException e) {
                    c.rollback();
                    return completion;
                }
            }
            try {
                if (!completion.isPlainCompletion()) {
                    // Only the outcome is kept: no handler work to prepare, no external call to make.
                    c.commit();
                    return null;
                }
                Exception externalFailure = ctx.kinds().get(claimed.kind()).mode().commit(c, execution.job(), ctx.sql());
                if (externalFailure != null) {
                    return translator.fromFailure(claimed, "ExternalCallFailed",
                            "the external call failed, the prepared work was rolled back: "
                                    + OutcomeTranslator.messageOf(externalFailure), externalFailure, options,
                            ctx.workerId());
                }
            } catch (SQLException e) {
                return translator.fromFailure(claimed, "CommitFailed",
                        "the job's transaction failed to commit: " + e.getMessage(), e, options, ctx.workerId());
            }
            return null;
        } finally {
            execution.bindConnection(null);
            ctx.tracker().finish(execution);
        }
    }

    /** See record_lost_attempt.sql: counts an attempt whose transaction rolled back without our say. */
    private void recordLostAttempt(Completion lost) {
        try (Connection c = Transactions.autoCommit(ctx.dataSource())) {
            ctx.writer().writeLostAttempt(c, lost, ctx.workerId());
        } catch (Throwable t) {
            log.warn("could not record the lost attempt {} of job {}; it will be retried without counting it: {}",
                    lost.attempt(), lost.id(), t.toString());
        }
    }

    /** Runs the handler for one execution and returns the completion to record. Never throws. */
    private Completion execute(ClaimedJob claimed, Execution execution, Connection tx) {
        try {
            return executeHandler(claimed, execution, tx);
        } catch (Throwable t) {
            // A bug of ours or an exception whose methods throw: the job must still get an outcome.
            log.error("recording the outcome of job {} failed; recording a failed attempt", claimed.id(), t);
            return translator.fromFailure(claimed, "InternalError", OutcomeTranslator.messageOf(t), null,
                    KindOptions.defaults(), ctx.workerId());
        }
    }

    private Completion executeHandler(ClaimedJob claimed, Execution execution, Connection tx) {
        RegisteredKind kind = ctx.kinds().get(claimed.kind());
        String workerId = ctx.workerId();
        if (kind == null || !kind.mode().runnable()) {
            // Another deployment may know this kind (rolling deploy), so this counts as a failed
            // attempt and is retried; out of attempts, it is discarded with this reason.
            return translator.fromFailure(claimed, "UnknownKind",
                    "no handler registered for kind '" + claimed.kind() + "' on worker " + workerId,
                    null, KindOptions.defaults(), workerId);
        }
        Object args;
        try {
            args = readers.computeIfAbsent(kind.argsType(), ctx.mapper()::readerFor).readValue(claimed.argsJson());
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
        Job<Object> job = new Job<>(claimed.id(), claimed.queue(), claimed.kind(), args, claimed.priority(),
                claimed.attempt(), claimed.maxAttempts(), claimed.createdAt(), workerId);
        execution.bindJob(job);
        ScheduledFuture<?> watchdog = scheduleTimeout(execution, kind, claimed, tx == null);
        execution.bindThread(Thread.currentThread());
        try {
            Outcome outcome = kind.mode().invoke(job, tx);
            return translator.fromOutcome(claimed, outcome, kind.options(), workerId);
        } catch (Throwable t) {
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
        return ctx.timers().schedule(() -> {
            execution.markTimedOut();
            if (leased) {
                // Record the failure now: a handler that ignores the interrupt must not keep the job.
                Completion timedOut = translator.fromFailure(claimed, "JobTimeout", timeoutMessage(kind), null,
                        kind.options(), ctx.workerId());
                if (execution.settle()) {
                    ctx.completer().submit(execution, timedOut);
                }
            }
            execution.interrupt();
        }, delay, TimeUnit.MILLISECONDS);
    }

    /**
     * True when the server cancelled a statement (SQLSTATE 57014), which in transactional mode is
     * the kind's timeout enforced through statement_timeout, before the interrupt is due.
     */
    private static boolean isStatementTimeout(Throwable t) {
        Throwable c = t;
        for (int depth = 0; c != null && depth < 20; depth++, c = c.getCause()) {
            if (c instanceof SQLException && "57014".equals(((SQLException) c).getSQLState())) {
                return true;
            }
        }
        return false;
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
