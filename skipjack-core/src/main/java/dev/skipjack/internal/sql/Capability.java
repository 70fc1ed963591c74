package dev.skipjack.internal.sql;

/**
 * What a database can do that Skipjack's statements rely on. Callers ask the {@link Dialect}
 * instead of assuming PostgreSQL, so a backend without a capability gets another path (or a clear
 * refusal) in one place.
 */
public enum Capability {
    /** {@code UPDATE ... RETURNING}: claim and mark in one statement. Without it, lock, read, then update by id. */
    UPDATE_RETURNING,
    /** {@code INSERT ... RETURNING}: a batch of jobs and their ids in one statement. Without it, one insert per job in a JDBC batch. */
    INSERT_RETURNING,
    /**
     * {@code INSERT ... RETURNING} inside {@code WITH}, whose rows a {@code SELECT} can aggregate: a
     * batch's ids come back as one row (first id and count) instead of one row per job.
     */
    INSERT_IN_WITH,
    /**
     * One multi-row {@code INSERT} gives its rows consecutive ids in insertion order, the last one
     * {@code last_insert_rowid()}: an AUTOINCREMENT key under the database's one write lock
     * (SQLite). A batch's ids then follow from its row count and that last id, and the insert
     * needs no {@code RETURNING}, which buffers every row (an eighth of a bulk insert's time there).
     */
    CONSECUTIVE_INSERT_IDS,
    /** {@code FOR UPDATE SKIP LOCKED}: concurrent claimers never wait on each other's rows. */
    SKIP_LOCKED,
    /** Array parameters ({@code ?::bigint[]}, {@code unnest}): a whole batch in one statement. */
    ARRAY_PARAMETERS,
    /** {@code LISTEN}/{@code NOTIFY}: enqueues wake idle workers of other processes. */
    LISTEN_NOTIFY,
    /** {@code PREPARE TRANSACTION}/{@code COMMIT PREPARED}: the two-phase execution mode. */
    TWO_PHASE_COMMIT,
    /** Transaction-scoped advisory locks: migrations from many nodes at once (else session locks, {@code GET_LOCK}). */
    ADVISORY_LOCKS,
    /**
     * Writers that do not wait for each other: row locks, not one lock for the whole database.
     * Without it (SQLite) a worker sends one claim statement at a time and has one completion
     * writer: parallel writers only queue for the write lock, and SQLite's busy handler sleeps
     * between tries (drain at a third of the speed, measured).
     */
    CONCURRENT_WRITERS,
    /** {@code SET LOCAL statement_timeout}: a transactional handler's timeout enforced by the server. */
    STATEMENT_TIMEOUT,
    /**
     * Not a feature but a trait callers must plan for: one failed statement aborts the whole
     * transaction (PostgreSQL), so Skipjack's statements on a caller's connection run in a
     * savepoint ({@link Transactions#guarded}). MariaDB and SQLite undo the failed statement alone.
     */
    FAILED_STATEMENT_ABORTS_TRANSACTION
}
