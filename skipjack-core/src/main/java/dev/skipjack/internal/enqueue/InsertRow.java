package dev.skipjack.internal.enqueue;

/**
 * One validated job ready for insert. {@code runAtMillis} and {@code delayMillis} are null unless
 * set; at most one of them is set. {@code uniqueKey} is null for a job that is not unique (F-10);
 * {@code uniqueIncludesCompleted} says whether its completed job keeps holding the key.
 * {@code tagsJson} (a JSON array) and {@code metadataJson} (a JSON object) are null when the job
 * has none. {@code concurrencyKey} (F-12, F-13) is null for a job without one; with one, the job is
 * inserted waiting for a slot of its key, of which there are {@code concurrencyMax}, admitted in
 * {@code concurrencyOrder} ({@link ConcurrencyOrder}); a rate limit's period is
 * {@code concurrencyPeriodMillis} (null for other keys).
 */
public record InsertRow(String queue, String kind, String argsJson, int priority, int maxAttempts,
                        Long runAtMillis, Long delayMillis, String uniqueKey, boolean uniqueIncludesCompleted,
                        String tagsJson, String metadataJson, String concurrencyKey, Integer concurrencyMax,
                        String concurrencyOrder, Long concurrencyPeriodMillis) {

    /** A row without a concurrency key. */
    public InsertRow(String queue, String kind, String argsJson, int priority, int maxAttempts,
                     Long runAtMillis, Long delayMillis, String uniqueKey, boolean uniqueIncludesCompleted,
                     String tagsJson, String metadataJson) {
        this(queue, kind, argsJson, priority, maxAttempts, runAtMillis, delayMillis, uniqueKey, uniqueIncludesCompleted,
                tagsJson, metadataJson, null, null, null, null);
    }

    /** This row with other args: another job of the same shape (not for unique or keyed rows, whose keys depend on the args). */
    public InsertRow withArgs(String json) {
        return new InsertRow(queue, kind, json, priority, maxAttempts, runAtMillis, delayMillis, uniqueKey,
                uniqueIncludesCompleted, tagsJson, metadataJson, concurrencyKey, concurrencyMax, concurrencyOrder,
                concurrencyPeriodMillis);
    }

    /** Whether the row is due at {@code nowMillis} (client clock), neither at a later instant nor after a delay. */
    public boolean isDueNow(long nowMillis) {
        return (runAtMillis == null || runAtMillis <= nowMillis) && (delayMillis == null || delayMillis <= 0);
    }

    public boolean isUnique() {
        return uniqueKey != null;
    }

    /** Whether the row has a concurrency key, and so waits to be admitted. */
    public boolean isKeyed() {
        return concurrencyKey != null;
    }

    /**
     * Whether this row and {@code other} have the same queue, kind, priority, max attempts and due
     * time, so one multi-row statement can bind those once. Rows of one bulk request share the very
     * strings, so the comparisons mostly stop at identity.
     */
    boolean sameShapeAs(InsertRow other) {
        return priority == other.priority && maxAttempts == other.maxAttempts
                && java.util.Objects.equals(runAtMillis, other.runAtMillis)
                && java.util.Objects.equals(delayMillis, other.delayMillis)
                && kind.equals(other.kind) && queue.equals(other.queue);
    }

    /**
     * Whether the row needs the one-row insert (insert_one_job.sql): unique, tagged, with metadata
     * or with a concurrency key.
     */
    boolean needsOneRowInsert() {
        return uniqueKey != null || tagsJson != null || metadataJson != null || concurrencyKey != null;
    }
}
