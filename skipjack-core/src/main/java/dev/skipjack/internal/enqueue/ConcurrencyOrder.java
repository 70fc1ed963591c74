package dev.skipjack.internal.enqueue;

/**
 * How a concurrency key's waiting jobs are admitted (the {@code concurrency_order} column, F-12 and
 * F-13), and the prefixes that keep the three sources of keys apart in one column.
 */
public final class ConcurrencyOrder {

    /** A limit: by priority, due time and id; a job not yet due does not hold back the others. */
    public static final String PRIORITY = "priority";
    /** A sequence: in enqueue order, one at a time; a discarded job lets the next run. */
    public static final String FIFO = "fifo";
    /** A sequence whose discarded job keeps the key until an operator retries or deletes it. */
    public static final String FIFO_BLOCK = "fifo_block";

    /**
     * A rate limit: admitted as {@link #PRIORITY} while fewer than the limit of the key's jobs
     * started within the period or wait admitted; a failed attempt waits to be admitted again.
     */
    public static final String RATE = "rate";

    /** Key of a kind's limit: {@code kind:<name>} or {@code kind:<name>/<partition>}. */
    public static final String KIND_PREFIX = "kind:";
    /** Key given with {@code EnqueueOptions.withConcurrencyKey}. */
    public static final String KEY_PREFIX = "key:";
    /** Key of a kind's rate limit: {@code kind-rate:<name>} or {@code kind-rate:<name>/<partition>}. */
    public static final String KIND_RATE_PREFIX = "kind-rate:";
    /** Key given with {@code EnqueueOptions.withRateLimit}. */
    public static final String RATE_PREFIX = "rate:";
    /** Key given with {@code EnqueueOptions.withSequenceKey}. */
    public static final String SEQUENCE_PREFIX = "seq:";

    private ConcurrencyOrder() {
    }

    /** Whether jobs of {@code storedKey} are limited by rate (starts per period) rather than by slots. */
    public static boolean isRate(String storedKey) {
        return storedKey.startsWith(RATE_PREFIX) || storedKey.startsWith(KIND_RATE_PREFIX);
    }

    /** Whether jobs of {@code storedKey} are admitted in enqueue order (a sequence). */
    public static boolean isInOrder(String storedKey) {
        return storedKey.startsWith(SEQUENCE_PREFIX);
    }
}
