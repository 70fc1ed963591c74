package dev.skipjack;

import java.util.Objects;

/** One job to enqueue: its kind, its args (any Jackson-serializable value) and its options. */
public record JobRequest(String kind, Object args, EnqueueOptions options) {

    public JobRequest {
        Objects.requireNonNull(options, "options");
    }

    public static JobRequest of(String kind, Object args) {
        return new JobRequest(kind, args, EnqueueOptions.defaults());
    }

    public static JobRequest of(String kind, Object args, EnqueueOptions options) {
        return new JobRequest(kind, args, options);
    }
}
