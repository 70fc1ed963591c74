package dev.skipjack;

import java.util.Locale;

/**
 * The states a job moves through; see {@code docs/state-machine.md} for the transitions.
 * {@link #COMPLETED}, {@link #DISCARDED} and {@link #CANCELLED} are terminal.
 */
public enum JobState {
    /**
     * A workflow job waiting for its parents (F-14): made available (or scheduled, when its
     * {@code run_at} is still ahead) once every parent completed. Never claimed.
     */
    WAITING,
    /** Waiting for its {@code run_at}; made available when it is due. */
    SCHEDULED,
    /** Due and waiting for a worker. */
    AVAILABLE,
    /** Claimed by a worker (lease mode: holds a lease; transactional mode: held by an open transaction). */
    RUNNING,
    /** Failed an attempt, waiting for its backoff before it is available again. */
    RETRYABLE,
    /** Done. */
    COMPLETED,
    /** Out of attempts, or discarded by its handler or because it cannot be handled. */
    DISCARDED,
    /** Cancelled by its handler or an operator. */
    CANCELLED;

    /** The value stored in the {@code state} column. */
    public String dbValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean isTerminal() {
        return this == COMPLETED || this == DISCARDED || this == CANCELLED;
    }

    public static JobState fromDb(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
