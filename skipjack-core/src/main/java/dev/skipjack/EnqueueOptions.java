package dev.skipjack;

import java.time.Duration;
import java.time.Instant;

/**
 * Where and when a job runs. Immutable: each {@code with} method returns a new instance and leaves
 * this one as it was, so a shared instance (a constant, {@link #defaults()}) is safe to build on:
 * {@code EnqueueOptions.defaults().withQueue("mail").withPriority(1).withDelay(Duration.ofMinutes(5))}.
 * Defaults: queue {@value #DEFAULT_QUEUE}, priority 0, due now, the kind's max attempts.
 *
 * <p>The {@code with} methods refuse bad values with {@link InvalidOptionException}, the
 * {@link InvalidJobException} of input refused at enqueue.
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

    /** Queue {@value #DEFAULT_QUEUE}, priority 0, due now, the kind's max attempts. */
    public static EnqueueOptions defaults() {
        return DEFAULTS;
    }

    /**
     * These options on queue {@code queue}.
     *
     * @throws InvalidOptionException when the name is not 1-64 of a-z, 0-9, '_', '-', '.'
     *                                starting with a letter or digit ({@link Limits#QUEUE_NAME})
     */
    public EnqueueOptions withQueue(String queue) {
        return new EnqueueOptions(Limits.requireQueueName(queue), priority, runAt, delay, maxAttempts);
    }

    /**
     * These options with {@code priority}: 0 (most urgent) to {@link Limits#MAX_PRIORITY}.
     *
     * @throws InvalidOptionException when out of that range
     */
    public EnqueueOptions withPriority(int priority) {
        if (priority < 0 || priority > Limits.MAX_PRIORITY) {
            throw new InvalidOptionException("priority must be between 0 and " + Limits.MAX_PRIORITY + ", got " + priority);
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts);
    }

    /**
     * These options with the job running no earlier than {@code runAt}. Replaces any delay.
     *
     * @throws InvalidOptionException when null
     */
    public EnqueueOptions withRunAt(Instant runAt) {
        if (runAt == null) {
            throw new InvalidOptionException("runAt must not be null");
        }
        return new EnqueueOptions(queue, priority, runAt, null, maxAttempts);
    }

    /**
     * These options with the job running no earlier than {@code delay} after the enqueue, measured
     * on the database clock. Replaces any runAt.
     *
     * @throws InvalidOptionException when null, negative or over 100 years
     */
    public EnqueueOptions withDelay(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new InvalidOptionException("delay must be zero or positive, got " + delay);
        }
        if (delay.compareTo(Duration.ofDays(365 * 100)) > 0) {
            throw new InvalidOptionException("delay must be at most 100 years, got " + delay);
        }
        return new EnqueueOptions(queue, priority, null, delay, maxAttempts);
    }

    /**
     * These options with {@code maxAttempts}, 1 to {@link Limits#MAX_ATTEMPTS}, instead of the kind's.
     *
     * @throws InvalidOptionException when out of that range
     */
    public EnqueueOptions withMaxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > Limits.MAX_ATTEMPTS) {
            throw new InvalidOptionException("maxAttempts must be between 1 and " + Limits.MAX_ATTEMPTS + ", got " + maxAttempts);
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts);
    }

    /** The queue, {@value #DEFAULT_QUEUE} unless set. */
    public String queue() {
        return queue;
    }

    /** The priority, 0 unless set. */
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
