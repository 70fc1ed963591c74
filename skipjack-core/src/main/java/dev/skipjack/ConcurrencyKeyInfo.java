package dev.skipjack;

/**
 * A concurrency or sequence key in use (F-12, F-13), as operators see it: {@code key} as stored
 * ({@code kind:<kind>[/<partition>]} for a kind's limit, {@code key:<key>} for
 * {@link EnqueueOptions#withConcurrencyKey}, {@code seq:<key>} for
 * {@link EnqueueOptions#withSequenceKey}), its limit, whether its jobs run in enqueue order, how
 * many of its jobs hold a slot now ({@code holding}: admitted and not ended, or a discarded job
 * blocking an ordered key), how many of those run, how many wait for a slot, and the oldest job
 * holding one ({@code heldBy}: for a sequence, the job every other waits on; null when none).
 * A rate-limited key ({@code kind-rate:...}, {@code rate:...}) has its {@code period}: at most
 * {@code max} of its jobs start per period; null for the others.
 */
public record ConcurrencyKeyInfo(String key, int max, boolean ordered, long holding, long running, long waiting,
                                 Long heldBy, java.time.Duration period) {

    /**
     * Whether its waiting jobs wait because every slot is taken (rather than for their due time);
     * always false for a rate-limited key, whose jobs wait for its window.
     */
    public boolean isFull() {
        return period == null && holding >= max;
    }
}
