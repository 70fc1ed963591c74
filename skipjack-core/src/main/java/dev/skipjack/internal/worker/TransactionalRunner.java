package dev.skipjack.internal.worker;

import dev.skipjack.internal.sql.ConnectionHints;
import dev.skipjack.KindOptions;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.kind.RegisteredKind;
import dev.skipjack.internal.sql.Capability;
import dev.skipjack.internal.sql.SqlStatements;
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
import javax.sql.DataSource;

/**
 * A job's whole path in transactional mode (F-4), for one queue: claims one job inside a new
 * transaction, has the {@link JobExecutor} run it on that transaction, writes its outcome in the
 * same transaction and commits through the kind's execution mode (plain commit, or prepare, call
 * and commit for two-phase kinds). The claim becomes visible only with the outcome, so a crash at
 * any point rolls the job back to available, with the handler's writes.
 */
final class TransactionalRunner {

    private static final Logger log = LoggerFactory.getLogger(TransactionalRunner.class);

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final JobClaimer claimer;
    private final CompletionWriter writer;
    private final ExecutionTracker tracker;
    private final OutcomeTranslator translator;
    private final JobExecutor executor;
    private final Map<String, RegisteredKind> kinds;
    private final String workerId;
    private final String queue;
    /** The kinds of this queue claimed inside their job's transaction. */
    private final Set<String> transactionalKinds;
    /** Writes the handler's reports in the job's transaction, with its outcome. */
    private final ReportWriter reports;

    TransactionalRunner(DataSource dataSource, SqlStatements sql, JobClaimer claimer, CompletionWriter writer,
                        ExecutionTracker tracker, OutcomeTranslator translator, JobExecutor executor,
                        Map<String, RegisteredKind> kinds, String workerId, String queue, Set<String> transactionalKinds,
                        ReportWriter reports) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.claimer = claimer;
        this.writer = writer;
        this.tracker = tracker;
        this.translator = translator;
        this.executor = executor;
        this.kinds = kinds;
        this.workerId = workerId;
        this.queue = queue;
        this.transactionalKinds = Set.copyOf(transactionalKinds);
        this.reports = reports;
    }

    /** The handler's progress and log lines, written in the job's transaction just before its outcome. */
    private void flushReports(Connection c, Execution execution) {
        ExecutionReports reported = execution.reports();
        if (reported != null) {
            reports.flushInTransaction(c, reported);
        }
    }

    /**
     * Transactional mode: claims at most one job in a new transaction, runs it there and commits.
     * Returns false when there was nothing to claim.
     */
    boolean runOne() {
        return run(c -> claimer.claimTransactional(c, queue, transactionalKinds, 1));
    }

    /**
     * Transactional mode for one given job (InlineRunner): claims job {@code id} in a new
     * transaction if it is available, runs it there and commits, exactly as {@link #runOne()}.
     * Returns false when the job was not available.
     */
    boolean runJob(long id) {
        return run(c -> claimer.claimJob(c, id));
    }

    /** How a run claims its job: at most one, inside the transaction of {@code c}. */
    @FunctionalInterface
    private interface Claim {
        List<ClaimedJob> claim(Connection c) throws SQLException;
    }

    private boolean run(Claim claim) {
        ClaimedJob claimed = null;
        Completion lost = null;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            Ended ended = null;
            try {
                List<ClaimedJob> jobs = claim.claim(c);
                if (jobs.isEmpty()) {
                    c.commit();
                    return false;
                }
                claimed = jobs.get(0);
                ended = runInTransaction(c, claimed);
                lost = ended.lost();
            } catch (Throwable t) {
                rollbackQuietly(c);
                if (claimed != null) {
                    lost = translator.fromFailure(claimed, "TransactionLost",
                            "the job's transaction was lost before it committed: " + OutcomeTranslator.messageOf(t), t,
                            executor.kindOptions(claimed), workerId);
                }
            } finally {
                // Only now: with a transaction still open, setAutoCommit(true) would commit it.
                resetQuietly(c);
            }
            if (ended != null && ended.committed() != null) {
                // A keyed job's end admits its key's next job (F-12, F-13), on this connection,
                // now in auto-commit: a second connection could wait on a pool this runner holds.
                writer.afterCommit(c, List.of(ended.committed()));
            }
        } catch (Throwable t) {
            log.warn("transactional job on queue {} rolled back: {}", queue, t.toString());
            ConnectionHints.note(sql.dialect(), t);
        }
        if (lost != null) {
            recordLostAttempt(lost);
        }
        return true;
    }

    /**
     * What became of a job run in its transaction: {@code committed} is the completion that
     * committed with it (null when none did), {@code lost} the completion to record for a
     * transaction that was lost (null when there is none).
     */
    private record Ended(Completion committed, Completion lost) {
        static final Ended NOTHING = new Ended(null, null);

        static Ended committed(Completion completion) {
            return new Ended(completion, null);
        }

        static Ended lost(Completion completion) {
            return new Ended(null, completion);
        }
    }

    /**
     * Runs one claimed job in its transaction and commits; says which completion committed, or
     * which to record for a transaction that was lost (neither when shutdown took the job over).
     */
    private Ended runInTransaction(Connection c, ClaimedJob claimed) throws SQLException {
        Execution execution = tracker.start(claimed.queue(), claimed.id(), claimed.attempt(), true, Long.MAX_VALUE);
        execution.bindConnection(c);
        try {
            Savepoint beforeHandler = c.setSavepoint();
            KindOptions options = executor.kindOptions(claimed);
            // Without a transaction-scoped server timeout the interrupt and watchdog enforce it alone.
            if (options.timeout() != null && sql.dialect().supports(Capability.STATEMENT_TIMEOUT)) {
                try (PreparedStatement ps = c.prepareStatement(sql.get("set_statement_timeout"))) {
                    ps.setString(1, Long.toString(Math.max(1, options.timeout().toMillis())));
                    ps.execute();
                }
            }
            Completion completion = executor.execute(claimed, execution, HandlerConnection.wrap(c));
            if (!execution.settle()) {
                // Shutdown took this execution over; roll back so the job is available at once.
                c.rollback();
                return Ended.NOTHING;
            }
            // Completed (with or without an output): the handler's writes commit with it.
            if (completion.isCompleted()) {
                boolean prepared = kinds.get(claimed.kind()).mode().preparesTransaction();
                try {
                    flushReports(c, execution);
                    if (writer.write(c, List.of(completion), !prepared) != 1) {
                        throw new SQLException("the job's claim is no longer in its transaction");
                    }
                } catch (SQLException e) {
                    // The handler left its transaction unusable (e.g. it swallowed a failed
                    // statement): count the attempt as failed instead of retrying it for free forever.
                    completion = translator.fromFailure(claimed, "TransactionAborted",
                            "the handler's transaction could not complete the job: " + e.getMessage(), e, options,
                            workerId);
                }
            }
            if (!completion.isCompleted()) {
                try {
                    // Only a completed job keeps the handler's writes.
                    c.rollback(beforeHandler);
                    flushReports(c, execution);
                    writer.write(c, List.of(completion));
                } catch (SQLException e) {
                    c.rollback();
                    return Ended.lost(completion);
                }
            }
            try {
                if (!completion.isCompleted()) {
                    // Only the outcome is kept: no handler work to prepare, no external call to make.
                    c.commit();
                    return Ended.committed(completion);
                }
                Exception externalFailure = kinds.get(claimed.kind()).mode().commit(c, execution.job(), sql);
                if (externalFailure != null) {
                    return Ended.lost(translator.fromFailure(claimed, "ExternalCallFailed",
                            "the external call failed, the prepared work was rolled back: "
                                    + OutcomeTranslator.messageOf(externalFailure), externalFailure, options,
                            workerId));
                }
            } catch (SQLException e) {
                return Ended.lost(translator.fromFailure(claimed, "CommitFailed",
                        "the job's transaction failed to commit: " + e.getMessage(), e, options, workerId));
            }
            return Ended.committed(completion);
        } finally {
            execution.bindConnection(null);
            tracker.finish(execution);
        }
    }

    /** See record_lost_attempt.sql: counts an attempt whose transaction rolled back without our say. */
    private void recordLostAttempt(Completion lost) {
        try (Connection c = Transactions.autoCommit(dataSource)) {
            writer.writeLostAttempt(c, lost, workerId);
        } catch (Throwable t) {
            log.warn("could not record the lost attempt {} of job {}; it will be retried without counting it: {}",
                    lost.attempt(), lost.id(), t.toString());
        }
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
