package dev.skipjack;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * A global limit of a kind (F-12): at most {@link #max()} of its jobs run at once across every node
 * ({@link JobKind#limitedTo(int)}), or at most that many start per {@link #period()}
 * ({@link JobKind#rateLimitedTo(int, Duration)}); when partitioned, per partition of its args ("at
 * most 2 at once per customer", "at most 100 a minute per API account"). Declared on the kind's
 * handle, so every client that enqueues through the handle (or registers it) applies the same limit:
 *
 * <pre>{@code
 * static final JobKind<SyncCustomer> SYNC = JobKind.of("sync-customer", SyncCustomer.class)
 *         .limitedTo(2, SyncCustomer::customerId);
 * }</pre>
 *
 * Immutable. See {@link JobKind#limitedTo(int)} and docs/limits-and-ordering.md.
 *
 * @param <T> the kind's args type
 */
public final class ConcurrencyLimit<T> {

    /** The largest limit accepted: far above any pool of workers, and a slot count that cannot overflow. */
    public static final int MAX = 100_000;
    /** The longest period of a rate limit. */
    public static final Duration MAX_PERIOD = Duration.ofDays(1);

    private final int max;
    private final Duration period;
    private final Function<? super T, ?> partition;

    private ConcurrencyLimit(int max, Duration period, Function<? super T, ?> partition) {
        String option = period == null ? "limitedTo" : "rateLimitedTo";
        if (max < 1 || max > MAX) {
            throw new InvalidConfigurationException(option, "a " + (period == null ? "concurrency" : "rate")
                    + " limit must be between 1 and " + MAX + ", got " + max);
        }
        String problem = period == null ? null : periodProblem(period);
        if (problem != null) {
            throw new InvalidConfigurationException(option, problem);
        }
        this.max = max;
        this.period = period;
        this.partition = partition;
    }

    static <T> ConcurrencyLimit<T> of(int max, Function<? super T, ?> partition) {
        return new ConcurrencyLimit<>(max, null, partition);
    }

    static <T> ConcurrencyLimit<T> rate(int max, Duration period, Function<? super T, ?> partition) {
        if (period == null) {
            throw new InvalidConfigurationException("rateLimitedTo", "the period of a rate limit must not be null");
        }
        return new ConcurrencyLimit<>(max, period, partition);
    }

    /** What is wrong with a rate limit's period, or null: from 1 ms to {@link #MAX_PERIOD}, whole milliseconds. */
    static String periodProblem(Duration period) {
        if (period.compareTo(Duration.ofMillis(1)) < 0 || period.compareTo(MAX_PERIOD) > 0) {
            return "the period of a rate limit must be between 1 ms and " + MAX_PERIOD + ", got " + period;
        }
        return null;
    }

    /** The period of a rate limit; null for a concurrency limit. */
    public Duration period() {
        return period;
    }

    /** Whether this limits how many start per {@link #period()} rather than how many run at once. */
    public boolean isRate() {
        return period != null;
    }

    /** Jobs of the kind (of one partition, when partitioned) running at once at most. */
    public int max() {
        return max;
    }

    /** Whether the limit applies per partition of the args rather than to the whole kind. */
    public boolean isPartitioned() {
        return partition != null;
    }

    /**
     * The partition {@code args} fall in, as text ({@code String.valueOf} of what the partition
     * function returns); null for a limit on the whole kind.
     *
     * @throws InvalidArgsException when the function throws or returns null
     */
    public String partitionOf(String kind, Object args) {
        if (partition == null) {
            return null;
        }
        Object value;
        try {
            @SuppressWarnings("unchecked")
            Function<Object, ?> f = (Function<Object, ?>) partition;
            value = f.apply(args);
        } catch (RuntimeException e) {
            throw new InvalidArgsException("the concurrency limit of kind '" + kind + "' could not find the partition"
                    + " of its args: " + e, e);
        }
        if (value == null) {
            throw new InvalidArgsException("the concurrency limit of kind '" + kind + "' found no partition in its args"
                    + " (the partition function returned null)");
        }
        return String.valueOf(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConcurrencyLimit<?> other && max == other.max && Objects.equals(period, other.period)
                && Objects.equals(partition, other.partition);
    }

    @Override
    public int hashCode() {
        return Objects.hash(max, period, partition);
    }

    @Override
    public String toString() {
        return "ConcurrencyLimit[" + max + (period == null ? "" : " per " + period)
                + (partition == null ? "" : " per partition") + "]";
    }
}
