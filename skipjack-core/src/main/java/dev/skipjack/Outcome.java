package dev.skipjack;

import java.time.Duration;
import java.util.Objects;

/** What a handler says about the job it ran. Throwing an exception is the fifth outcome: failure. */
public final class Outcome {

    /** The kinds of outcome. */
    public enum Type {
        /** Done: the job becomes {@code completed}. */
        COMPLETE,
        /** Run again after a delay, spending an attempt (the delay of the kind's policy when none is given). */
        RETRY,
        /** Run again after a delay without spending an attempt. */
        SNOOZE,
        /** Give up: the job becomes {@code discarded} with the reason recorded. */
        DISCARD,
        /** The job is no longer wanted: it becomes {@code cancelled} with the reason recorded. */
        CANCEL
    }

    private static final Outcome COMPLETE = new Outcome(Type.COMPLETE, null, null, null);

    private final Type type;
    private final Duration delay;
    private final String reason;
    private final Object output;

    private Outcome(Type type, Duration delay, String reason, Object output) {
        this.type = type;
        this.delay = delay;
        this.reason = reason;
        this.output = output;
    }

    public static Outcome complete() {
        return COMPLETE;
    }

    /**
     * Done, with a result: {@code output} is stored with the job as JSON (the client's mapper, at
     * most {@link #MAX_OUTPUT_BYTES}), shown in {@link JobInfo#outputJson()}, and read by the job's
     * children in a workflow ({@link Job#parentOutput}). Keep it small: an id or a summary, not the
     * data. A null output is {@link #complete()}. An output that does not serialize, or is too
     * large, discards the job with the reason recorded.
     */
    public static Outcome complete(Object output) {
        return output == null ? COMPLETE : new Outcome(Type.COMPLETE, null, null, output);
    }

    /** Largest output a job may record, in bytes of JSON. */
    public static final int MAX_OUTPUT_BYTES = 64 * 1024;

    /** Retries after the kind's retry policy's delay. */
    public static Outcome retry(String reason) {
        return new Outcome(Type.RETRY, null, Objects.requireNonNull(reason, "reason"), null);
    }

    /** Retries after {@code delay}. */
    public static Outcome retry(Duration delay, String reason) {
        return new Outcome(Type.RETRY, requireNonNegative(delay), Objects.requireNonNull(reason, "reason"), null);
    }

    public static Outcome snooze(Duration delay) {
        return new Outcome(Type.SNOOZE, requireNonNegative(delay), null, null);
    }

    public static Outcome discard(String reason) {
        return new Outcome(Type.DISCARD, null, Objects.requireNonNull(reason, "reason"), null);
    }

    public static Outcome cancel(String reason) {
        return new Outcome(Type.CANCEL, null, Objects.requireNonNull(reason, "reason"), null);
    }

    public Type type() {
        return type;
    }

    /** The delay of a retry or snooze; null when the policy decides. */
    public Duration delay() {
        return delay;
    }

    /** The reason of a retry, discard or cancel. */
    public String reason() {
        return reason;
    }

    /** The result of a completion made with {@link #complete(Object)}; null otherwise. */
    public Object output() {
        return output;
    }

    private static Duration requireNonNegative(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative: " + delay);
        }
        return delay;
    }

    @Override
    public String toString() {
        return type + (delay != null ? " after " + delay : "") + (reason != null ? ": " + reason : "")
                + (output != null ? " with output" : "");
    }
}
