package dev.skipjack;

import java.time.Duration;
import java.time.Instant;

/**
 * Where and when a job runs. Immutable; each {@code with} method returns a copy.
 * Defaults: queue {@value #DEFAULT_QUEUE}, priority 0, due now, the kind's max attempts.
 */
public final class EnqueueOptions {

    public static final String DEFAULT_QUEUE = "default";
    /** Used when neither the options nor the kind set max attempts. */
    public static final int DEFAULT_MAX_ATTEMPTS = 25;

    private static final EnqueueOptions DEFAULTS = new EnqueueOptions(DEFAULT_QUEUE, 0, null, null, 0);

    private final String queue;
    private final int priority;
    private final Instant runAt;
    private final Duration delay;
    private final int maxAttempts;

    private EnqueueOptions(String queue, int priority, Instant runAt, Duration delay, int maxAttempts) {
        this.queue = queue;
        this.priority = priority;
        this.runAt = runAt;
        this.delay = delay;
        this.maxAttempts = maxAttempts;
    }

    public static EnqueueOptions defaults() {
        return DEFAULTS;
    }

    public EnqueueOptions queue(String queue) {
        return new EnqueueOptions(Limits.requireQueueName(queue), priority, runAt, delay, maxAttempts);
    }

    /** 0 (most urgent) to {@link Limits#MAX_PRIORITY}. */
    public EnqueueOptions priority(int priority) {
        if (priority < 0 || priority > Limits.MAX_PRIORITY) {
            throw new InvalidOptionException("priority must be between 0 and " + Limits.MAX_PRIORITY + ", got " + priority);
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts);
    }

    /** Runs no earlier than {@code runAt}. Replaces any delay. */
    public EnqueueOptions runAt(Instant runAt) {
        if (runAt == null) {
            throw new InvalidOptionException("runAt must not be null");
        }
        return new EnqueueOptions(queue, priority, runAt, null, maxAttempts);
    }

    /** Runs no earlier than {@code delay} after the enqueue, measured on the database clock. Replaces any runAt. */
    public EnqueueOptions delay(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new InvalidOptionException("delay must be zero or positive, got " + delay);
        }
        if (delay.compareTo(Duration.ofDays(365 * 100)) > 0) {
            throw new InvalidOptionException("delay must be at most 100 years, got " + delay);
        }
        return new EnqueueOptions(queue, priority, null, delay, maxAttempts);
    }

    /** 1 to {@link Limits#MAX_ATTEMPTS}. */
    public EnqueueOptions maxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > Limits.MAX_ATTEMPTS) {
            throw new InvalidOptionException("maxAttempts must be between 1 and " + Limits.MAX_ATTEMPTS + ", got " + maxAttempts);
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts);
    }

    public String queue() {
        return queue;
    }

    public int priority() {
        return priority;
    }

    /** Null unless set. */
    public Instant runAt() {
        return runAt;
    }

    /** Null unless set. */
    public Duration delay() {
        return delay;
    }

    /** 0 when not set: the kind's default applies. */
    public int maxAttempts() {
        return maxAttempts;
    }
}
