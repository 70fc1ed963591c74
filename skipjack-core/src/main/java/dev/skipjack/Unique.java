package dev.skipjack;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Makes a job unique (F-10): while a job of the same kind with the same unique key is not finished
 * (scheduled, available, running or retryable), enqueueing another returns the existing job
 * instead, and {@link Skipjack#enqueueWithResult} says it was a duplicate. The database enforces
 * it with a unique index, so it holds across threads, processes and nodes; there is no read before
 * the insert to race with.
 *
 * <pre>{@code
 * // one sync per customer waiting or running at a time
 * skipjack.enqueue(SYNC, new Sync(customerId),
 *         EnqueueOptions.defaults().withUnique(Unique.byArgs("customerId")));
 * // at most one digest per user and day, even once it has completed
 * skipjack.enqueue(DIGEST, new Digest(userId),
 *         EnqueueOptions.defaults().withUnique(Unique.byKey("digest-" + userId).within(Duration.ofDays(1)).includingCompleted()));
 * }</pre>
 *
 * <p>The key is made of the kind's name and, as chosen: the args (all of them, or some top-level
 * fields, compared as JSON whatever the order of their fields), or a key you give; the queue
 * ({@link #perQueue()}); and the period the job's due time falls in ({@link #within(Duration)}).
 * {@link JobInfo#uniqueKey()} shows it.
 *
 * <p>A key is free again when its job completes, is discarded or is cancelled; with
 * {@link #includingCompleted()} a completed job keeps holding it until retention prunes it.
 * Retrying a finished job by hand ({@link SkipjackAdmin#retry}) is refused for a job whose key
 * another job holds by then. Immutable.
 */
public final class Unique {

    /** The longest key {@link #byKey(String)} takes, in characters. */
    public static final int MAX_KEY_LENGTH = 200;

    private final String key;
    private final List<String> argFields;
    private final boolean perQueue;
    private final Duration period;
    private final boolean includingCompleted;

    private Unique(String key, List<String> argFields, boolean perQueue, Duration period, boolean includingCompleted) {
        this.key = key;
        this.argFields = argFields;
        this.perQueue = perQueue;
        this.period = period;
        this.includingCompleted = includingCompleted;
    }

    /** Unique by kind and all of the args, compared as JSON (the order of object fields does not matter). */
    public static Unique byArgs() {
        return new Unique(null, List.of(), false, null, false);
    }

    /**
     * Unique by kind and the top-level args fields {@code fields}; other fields may differ. At
     * enqueue, args that lack one of these fields are refused ({@link InvalidArgsException}), so a
     * misspelt name cannot make every job share one key.
     *
     * @throws InvalidOptionException when no field, a blank or repeated one is given
     */
    public static Unique byArgs(String... fields) {
        if (fields == null || fields.length == 0) {
            throw new InvalidOptionException("Unique.byArgs(fields) needs at least one field name; Unique.byArgs() compares all args");
        }
        List<String> list = Arrays.asList(fields.clone());
        for (String f : list) {
            if (f == null || f.isBlank()) {
                throw new InvalidOptionException("unique args field names must not be null or blank, got " + list);
            }
        }
        if (list.stream().distinct().count() != list.size()) {
            throw new InvalidOptionException("unique args field names must not repeat, got " + list);
        }
        return new Unique(null, List.copyOf(list), false, null, false);
    }

    /**
     * Unique by kind and {@code key}, whatever the args.
     *
     * @throws InvalidOptionException when the key is null, empty, longer than {@value #MAX_KEY_LENGTH}
     *                                characters, holds a control character or a lone surrogate, or
     *                                ends with a space (which MySQL and MariaDB ignore in comparisons)
     */
    public static Unique byKey(String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            throw new InvalidOptionException("unique key must be 1 to " + MAX_KEY_LENGTH + " characters, got "
                    + (key == null ? "null" : key.length() + " characters"));
        }
        if (key.endsWith(" ")) {
            throw new InvalidOptionException("invalid unique key '" + key + "': " + Limits.TRAILING_SPACE);
        }
        for (int i = 0; i < key.length(); i++) {
            char ch = key.charAt(i);
            if (Character.isISOControl(ch)) {
                throw new InvalidOptionException("unique key must not contain control characters, found U+"
                        + String.format("%04X", (int) ch) + " at index " + i);
            }
            if (Character.isHighSurrogate(ch) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                throw new InvalidOptionException("unique key must be valid UTF-16, found a lone surrogate at index " + i);
            }
        }
        return new Unique(key, List.of(), false, null, false);
    }

    /** This uniqueness, also keyed by the queue: the same job may wait once in each queue. */
    public Unique perQueue() {
        return new Unique(key, argFields, true, period, includingCompleted);
    }

    /**
     * This uniqueness within each period of {@code period}: the key includes the period the job's
     * due time falls in (its {@link EnqueueOptions#withRunAt run at}, else the enqueueing JVM's
     * clock plus any delay). Periods are counted from 1970-01-01T00:00Z in UTC, so a one-day
     * period is a UTC day.
     *
     * @throws InvalidOptionException when null, under one second, or over 100 years
     */
    public Unique within(Duration period) {
        if (period == null || period.compareTo(Duration.ofSeconds(1)) < 0 || period.compareTo(Duration.ofDays(36_500)) > 0) {
            throw new InvalidOptionException("unique period must be between 1 second and 100 years, got " + period);
        }
        return new Unique(key, argFields, perQueue, period, includingCompleted);
    }

    /** This uniqueness, with a completed job holding its key too, until retention prunes it. */
    public Unique includingCompleted() {
        return new Unique(key, argFields, perQueue, period, true);
    }

    /** The key given to {@link #byKey(String)}, if the uniqueness is by key. */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }

    /** The args fields compared; empty when by key or by all args. */
    public List<String> argFields() {
        return argFields;
    }

    public boolean isPerQueue() {
        return perQueue;
    }

    /** The period, if any. */
    public Optional<Duration> period() {
        return Optional.ofNullable(period);
    }

    public boolean isIncludingCompleted() {
        return includingCompleted;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Unique u && Objects.equals(key, u.key) && argFields.equals(u.argFields)
                && perQueue == u.perQueue && Objects.equals(period, u.period) && includingCompleted == u.includingCompleted;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, argFields, perQueue, period, includingCompleted);
    }

    @Override
    public String toString() {
        return "Unique[" + (key != null ? "key=" + key : argFields.isEmpty() ? "all args" : "args " + argFields)
                + (perQueue ? ", per queue" : "") + (period != null ? ", within " + period : "")
                + (includingCompleted ? ", including completed" : "") + "]";
    }
}
