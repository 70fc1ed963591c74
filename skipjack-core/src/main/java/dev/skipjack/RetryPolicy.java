package dev.skipjack;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a failed job waits before its next attempt; set per kind with
 * {@link KindOptions#withRetryPolicy(RetryPolicy)}.
 */
@FunctionalInterface
public interface RetryPolicy {

    /** Base of the default policy: the first retry waits about this long. */
    Duration DEFAULT_BASE = Duration.ofSeconds(1);
    /** Cap of the default policy. */
    Duration DEFAULT_MAX = Duration.ofHours(1);

    /**
     * @param failedAttempt the attempt that just failed, starting at 1
     * @return the delay before the next attempt, never negative
     */
    Duration delayAfter(int failedAttempt);

    /** The default: {@link #exponential} from {@link #DEFAULT_BASE} to {@link #DEFAULT_MAX}. */
    static RetryPolicy defaultPolicy() {
        return exponential(DEFAULT_BASE, DEFAULT_MAX);
    }

    /**
     * {@code base * 2^(attempt-1)}, capped at {@code max}, then multiplied by a random factor in
     * [0.75, 1.25) so that jobs that failed together do not all come back together.
     *
     * @throws InvalidConfigurationException (option {@code retryPolicy}) unless {@code 0 < base <= max}
     */
    static RetryPolicy exponential(Duration base, Duration max) {
        if (base == null || max == null || base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
            throw new InvalidConfigurationException("retryPolicy",
                    "retryPolicy exponential needs 0 < base <= max, got base " + base + ", max " + max);
        }
        long baseMillis = base.toMillis();
        long maxMillis = max.toMillis();
        return failedAttempt -> {
            int exponent = Math.max(0, Math.min(failedAttempt - 1, 40));
            double millis = Math.min((double) maxMillis, baseMillis * Math.pow(2, exponent));
            double jitter = 0.75 + ThreadLocalRandom.current().nextDouble() * 0.5;
            return Duration.ofMillis(Math.round(millis * jitter));
        };
    }

    /**
     * The same delay after every failure.
     *
     * @throws InvalidConfigurationException (option {@code retryPolicy}) when null or negative
     */
    static RetryPolicy fixed(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new InvalidConfigurationException("retryPolicy", "retryPolicy fixed delay must not be null or negative, got " + delay);
        }
        return failedAttempt -> delay;
    }
}
