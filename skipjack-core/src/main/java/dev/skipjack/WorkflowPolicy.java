package dev.skipjack;

import java.util.Locale;

/**
 * What a workflow does when one of its jobs ends without completing: discarded (out of attempts,
 * or discarded by its handler or an operator) or cancelled (F-14). See {@code docs/workflows.md}.
 */
public enum WorkflowPolicy {
    /**
     * The default: every job that depends on it, directly or through others, is cancelled and never
     * runs (its error history says which job it waited for). Jobs that do not depend on it run on.
     */
    CANCEL,
    /**
     * A job that ended without completing counts as done for its children: they run once their
     * other parents are done too, and see no output from it.
     */
    CONTINUE;

    /** The value stored in the {@code policy} column. */
    public String dbValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static WorkflowPolicy fromDb(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
