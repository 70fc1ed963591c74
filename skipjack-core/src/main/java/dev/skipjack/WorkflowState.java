package dev.skipjack;

import java.util.Locale;

/**
 * A workflow's state (F-14): {@link #RUNNING} while any of its jobs is not terminal, then one of
 * the three finished states, decided once, when its last job ends.
 */
public enum WorkflowState {
    /** Some job has not reached a terminal state yet. */
    RUNNING,
    /** Every job completed. */
    COMPLETED,
    /** Every job is terminal and at least one was discarded. */
    FAILED,
    /** Every job is terminal, at least one was cancelled and none discarded. */
    CANCELLED;

    /** The value stored in the {@code state} column of the workflows table. */
    public String dbValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean isFinished() {
        return this != RUNNING;
    }

    public static WorkflowState fromDb(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
