package dev.skipjack.internal.enqueue;

/**
 * One validated job ready for insert_jobs.sql. {@code runAtMillis} and {@code delayMillis} are
 * null unless set; at most one of them is set.
 */
public record InsertRow(String queue, String kind, String argsJson, int priority, int maxAttempts,
                        Long runAtMillis, Long delayMillis) {
}
