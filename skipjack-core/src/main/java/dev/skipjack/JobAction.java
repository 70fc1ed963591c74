package dev.skipjack;

/**
 * What an operator can do to jobs through {@link SkipjackAdmin}. Each applies only to jobs in the
 * states listed; others are left alone and not counted. See {@code docs/state-machine.md}.
 */
public enum JobAction {
    /** Scheduled, retryable, completed, discarded or cancelled → available now; a job out of attempts gets one more. */
    RETRY,
    /**
     * Scheduled, available, retryable or running → cancelled. A running lease-mode job's handler is
     * not interrupted, but its outcome is ignored. A running transactional job is skipped.
     */
    CANCEL,
    /** Like {@link #CANCEL}, but the job ends discarded. */
    DISCARD,
    /** Any job that is not running is deleted. */
    DELETE
}
