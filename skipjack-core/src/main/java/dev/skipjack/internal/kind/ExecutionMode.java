package dev.skipjack.internal.kind;

import dev.skipjack.Job;
import dev.skipjack.JobHandler;
import dev.skipjack.Outcome;
import dev.skipjack.TransactionalJobHandler;
import dev.skipjack.TwoPhaseJobHandler;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.twophase.TwoPhaseCommit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * How a kind's jobs run, decided once when the kind is registered. The job path asks its mode what
 * to do (claim in a transaction or not, call the handler, end the job's transaction) instead of
 * looking at handler types; this file is the only place that knows the handler interfaces apart.
 */
public sealed interface ExecutionMode {

    /** Claimed by the job threads inside the transaction the job runs in (F-4, F-5), not by the dispatcher's lease claim. */
    default boolean claimedInTransaction() {
        return false;
    }

    /** Whether this process runs the kind at all. */
    /**
     * Whether a completed job's transaction is prepared (PREPARE TRANSACTION) rather than committed:
     * PostgreSQL refuses to prepare a transaction that sent a NOTIFY, so nothing sends one in it.
     */
    default boolean preparesTransaction() {
        return false;
    }

    default boolean runnable() {
        return true;
    }

    /**
     * Calls the handler. {@code tx} is the job's transaction for the modes claimed in one, null
     * for lease mode.
     */
    Outcome invoke(Job<Object> job, Connection tx) throws Exception;

    /**
     * Ends the transaction of a completed job of a transactional mode: a plain commit, or for
     * two-phase kinds prepare, the external call and commit prepared.
     *
     * @return null when the job committed (or its commit is left to the resolver); the external
     *         call's failure when the prepared work was rolled back instead
     */
    default Exception commit(Connection tx, Job<Object> job, SqlStatements sql) throws SQLException {
        tx.commit();
        return null;
    }

    /** Lease mode: claimed and committed as running, handler outside any transaction of ours (F-2). */
    record Lease(JobHandler<Object> handler) implements ExecutionMode {
        @Override
        public Outcome invoke(Job<Object> job, Connection tx) throws Exception {
            return handler.handle(job);
        }
    }

    /** Transactional mode (F-4): the handler's writes commit with the job's completion. */
    record Transactional(TransactionalJobHandler<Object> handler) implements ExecutionMode {
        @Override
        public boolean claimedInTransaction() {
            return true;
        }

        @Override
        public Outcome invoke(Job<Object> job, Connection tx) throws Exception {
            return handler.handle(job, tx);
        }
    }

    /** Two-phase mode (F-5): database work, PREPARE TRANSACTION, the external call, COMMIT PREPARED. */
    record TwoPhase(TwoPhaseJobHandler<Object> handler) implements ExecutionMode {
        @Override
        public boolean claimedInTransaction() {
            return true;
        }

        @Override
        public boolean preparesTransaction() {
            return true;
        }

        @Override
        public Outcome invoke(Job<Object> job, Connection tx) throws Exception {
            return handler.prepare(job, tx);
        }

        @Override
        public Exception commit(Connection tx, Job<Object> job, SqlStatements sql) throws SQLException {
            return TwoPhaseCommit.prepareCallAndCommit(tx, sql, job, handler);
        }
    }

    /** Declared only: enqueued here, run by another service that has the handler. */
    record RunElsewhere() implements ExecutionMode {
        @Override
        public boolean runnable() {
            return false;
        }

        @Override
        public Outcome invoke(Job<Object> job, Connection tx) {
            throw new IllegalStateException("kind '" + job.kind() + "' has no handler in this process");
        }
    }

    /** The two-phase handlers among {@code kinds}, by kind name, for the prepared-transaction resolver. */
    static Map<String, TwoPhaseJobHandler<Object>> twoPhaseHandlers(Map<String, RegisteredKind> kinds) {
        Map<String, TwoPhaseJobHandler<Object>> out = new java.util.TreeMap<>();
        kinds.forEach((name, k) -> twoPhaseHandler(k).ifPresent(h -> out.put(name, h)));
        return out;
    }

    private static Optional<TwoPhaseJobHandler<Object>> twoPhaseHandler(RegisteredKind kind) {
        return kind.mode() instanceof TwoPhase t ? Optional.of(t.handler()) : Optional.empty();
    }
}
