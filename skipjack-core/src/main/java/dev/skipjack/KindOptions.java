package dev.skipjack;

import java.time.Duration;

/**
 * How jobs of one kind run: timeout, retry policy, default max attempts. Immutable.
 * Defaults: no timeout, {@link RetryPolicy#defaultPolicy()}, {@link EnqueueOptions#DEFAULT_MAX_ATTEMPTS}.
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

    public static KindOptions defaults() {
        return DEFAULTS;
    }

    /** A handler still running after {@code timeout} is interrupted and its attempt fails. */
    public KindOptions timeout(Duration timeout) {
        if (timeout == null || timeout.toMillis() < 1) {
            throw new InvalidOptionException("timeout must be at least 1 ms, got " + timeout);
        }
        return new KindOptions(timeout, retryPolicy, maxAttempts);
    }

    public KindOptions retryPolicy(RetryPolicy retryPolicy) {
        if (retryPolicy == null) {
            throw new InvalidOptionException("retryPolicy must not be null");
        }
        return new KindOptions(timeout, retryPolicy, maxAttempts);
    }

    /** Max attempts for jobs of this kind enqueued without their own. */
    public KindOptions maxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > Limits.MAX_ATTEMPTS) {
            throw new InvalidOptionException("maxAttempts must be between 1 and " + Limits.MAX_ATTEMPTS + ", got " + maxAttempts);
        }
        return new KindOptions(timeout, retryPolicy, maxAttempts);
    }

    /** Null when the kind has no timeout. */
    public Duration timeout() {
        return timeout;
    }

    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    public int maxAttempts() {
        return maxAttempts;
    }
}
