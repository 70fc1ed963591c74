package dev.skipjack;

import java.sql.Connection;

/**
 * Runs jobs whose work touches a system outside the database (F-5), with PostgreSQL's two-phase
 * commit: Skipjack claims the job in a transaction, calls {@link #prepare} for the database work,
 * writes the completion, {@code PREPARE TRANSACTION}s it all under a Skipjack-owned global id,
 * calls {@link #callExternal}, then {@code COMMIT PREPARED}. If the external call throws, it
 * {@code ROLLBACK PREPARED}s and the attempt counts as failed.
 *
 * <p>If the worker dies after the prepare, the prepared transaction outlives it (holding the job's
 * row). A resolver on every node with two-phase kinds finds such orphans once they are older than
 * the lease and their worker's session is gone (a live worker holds an advisory lock on the
 * transaction until it finished it, however long its call lasts), and asks
 * {@link #externalEffectHappened}: yes commits the prepared work, no rolls it back and the job runs
 * again. So the external call must be idempotent or checkable by job id and attempt (behind
 * PgBouncer in transaction mode, where session locks do not hold, it must also finish within the
 * lease). The server needs {@code max_prepared_transactions > 0}; {@code start()}
 * refuses to run two-phase kinds otherwise.
 */
public interface TwoPhaseJobHandler<T> {

    /** The database work, on the job's transaction (do not commit, roll back or close it). */
    Outcome prepare(Job<T> job, Connection tx) throws Exception;

    /** The outside call, made after the database work is prepared and before it commits. */
    void callExternal(Job<T> job) throws Exception;

    /** For the resolver after a crash: did {@link #callExternal} take effect for this attempt? */
    boolean externalEffectHappened(long jobId, int attempt) throws Exception;
}
