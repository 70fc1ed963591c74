package dev.skipjack;

import java.util.Objects;

/**
 * One job to enqueue with {@link Skipjack#enqueueAll}: its kind, its args (any Jackson-serializable
 * value) and its options. Immutable.
 */
public final class JobRequest {

    private final String kind;
    private final JobKind<?> handle;
    private final Object args;
    private final EnqueueOptions options;

    private JobRequest(String kind, JobKind<?> handle, Object args, EnqueueOptions options) {
        this.kind = kind;
        this.handle = handle;
        this.args = args;
        this.options = Objects.requireNonNull(options, "options");
    }

    /** A job of {@code kind} with default options; the args are checked at enqueue. */
    public static <T> JobRequest of(JobKind<T> kind, T args) {
        return of(kind, args, EnqueueOptions.defaults());
    }

    /** A job of {@code kind} with {@code options}; the args are checked at enqueue. */
    public static <T> JobRequest of(JobKind<T> kind, T args, EnqueueOptions options) {
        Objects.requireNonNull(kind, "kind");
        return new JobRequest(kind.name(), kind, args, options);
    }

    /**
     * A job of the kind named {@code kind}, which the enqueueing client must have registered
     * (handler or {@link Skipjack.Builder#kind(JobKind) declared}); for tools that get kind names
     * as text. Name and args are checked at enqueue.
     */
    public static JobRequest of(String kind, Object args) {
        return of(kind, args, EnqueueOptions.defaults());
    }

    /** As {@link #of(String, Object)}, with {@code options}. */
    public static JobRequest of(String kind, Object args, EnqueueOptions options) {
        return new JobRequest(kind, null, args, options);
    }

    /** The kind's name. */
    public String kind() {
        return kind;
    }

    /** The handle the request was made with; null when made with a kind name. */
    JobKind<?> handle() {
        return handle;
    }

    public Object args() {
        return args;
    }

    public EnqueueOptions options() {
        return options;
    }

}
