package dev.skipjack.dashboard;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * The overview's JSON, computed at most once per {@link #MAX_AGE} however many pages poll it. It
 * counts every job per queue and state and reads an hour of throughput, which on a table of
 * millions of rows is real work for the database, and every open page asks for it every two
 * seconds: ten operators' tabs were ten such reads every two seconds. Callers that arrive while it
 * is being computed wait for that computation and share it. A job or queue action made through
 * this dashboard {@linkplain #invalidate() invalidates} it, so its result shows at the next poll.
 */
final class SharedOverview {

    /** How old a shared overview may be: half the page's refresh interval. */
    static final Duration MAX_AGE = Duration.ofSeconds(1);

    private final Supplier<String> compute;
    /** Guarded by this. */
    private String json;
    /** When the computation of {@link #json} began (its data is at least that fresh); guarded by this. */
    private long computedAtNanos;

    SharedOverview(Supplier<String> compute) {
        this.compute = compute;
    }

    /** The overview, computed now if the shared one is missing or older than {@link #MAX_AGE}; a failure is not kept. */
    synchronized String get() {
        long now = System.nanoTime();
        if (json == null || now - computedAtNanos >= MAX_AGE.toNanos()) {
            json = compute.get();
            computedAtNanos = now;
        }
        return json;
    }

    /** Forgets the shared overview: the next {@link #get()} computes it. */
    synchronized void invalidate() {
        json = null;
    }
}
