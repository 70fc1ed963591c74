package dev.skipjack;

import java.time.Duration;

/**
 * How jobs of one kind run: timeout, retry policy, default max attempts. Immutable: each
 * {@code with} method returns a new instance and leaves this one as it was:
 * {@code KindOptions.defaults().withTimeout(Duration.ofSeconds(30)).withMaxAttempts(5)}.
 * Defaults: no timeout, {@link RetryPolicy#defaultPolicy()}, {@link EnqueueOptions#DEFAULT_MAX_ATTEMPTS}.
 *
 * <p>Part of a client's configuration: the {@code with} methods refuse bad values with
 * {@link InvalidConfigurationException} naming the option.
 */
public final class KindOptions {

    private static final KindOptions DEFAULTS =
            new KindOptions(null, RetryPolicy.defaultPolicy(), EnqueueOptions.DEFAULT_MAX_ATTEMPTS);

    private final Duration timeout;
    private final RetryPolicy retryPolicy;
    private final int maxAttempts;

    private KindOptions(Duration timeout, RetryPolicy retryPolicy, int maxAttempts) {
        this.timeout = timeout;
        this.retryPolicy = retryPolicy;
        this.maxAttempts = maxAttempts;
    }

    /** No timeout, {@link RetryPolicy#defaultPolicy()}, {@link EnqueueOptions#DEFAULT_MAX_ATTEMPTS}. */
    public static KindOptions defaults() {
        return DEFAULTS;
    }

    /**
     * These options with a timeout: a handler still running after {@code timeout} is interrupted
     * and its attempt fails.
     *
     * @throws InvalidConfigurationException (option {@code timeout}) when null or under 1 ms
     */
    public KindOptions withTimeout(Duration timeout) {
        if (timeout == null || timeout.toMillis() < 1) {
            throw new InvalidConfigurationException("timeout", "timeout must be at least 1 ms, got " + timeout);
        }
        return new KindOptions(timeout, retryPolicy, maxAttempts);
    }

    /**
     * These options with {@code retryPolicy} deciding how long a failed job waits.
     *
     * @throws InvalidConfigurationException (option {@code retryPolicy}) when null
     */
    public KindOptions withRetryPolicy(RetryPolicy retryPolicy) {
        if (retryPolicy == null) {
            throw new InvalidConfigurationException("retryPolicy", "retryPolicy must not be null");
        }
        return new KindOptions(timeout, retryPolicy, maxAttempts);
    }

    /**
     * These options with max attempts, 1 to {@link Limits#MAX_ATTEMPTS}, for jobs of this kind
     * enqueued without their own.
     *
     * @throws InvalidConfigurationException (option {@code maxAttempts}) when out of that range
     */
    public KindOptions withMaxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > Limits.MAX_ATTEMPTS) {
            throw new InvalidConfigurationException("maxAttempts", "maxAttempts must be between 1 and " + Limits.MAX_ATTEMPTS + ", got " + maxAttempts);
        }
        return new KindOptions(timeout, retryPolicy, maxAttempts);
    }

    /** Null when the kind has no timeout. */
    public Duration timeout() {
        return timeout;
    }

    /** How long a failed job of this kind waits before its next attempt. */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** Max attempts of jobs enqueued without their own. */
    public int maxAttempts() {
        return maxAttempts;
    }
}
