package dev.skipjack.internal.claim;

import java.time.Instant;
import java.util.Comparator;

/**
 * A job row as the claim statement returns it; args still JSON text, run_at in epoch microseconds.
 * {@code workflowId} and {@code workflowStep} are null for a job outside any workflow;
 * {@code concurrencyKey} is null for a job without a concurrency or sequence key (F-12, F-13).
 * {@code traceContext} is what the enqueuing client's interceptors stored (a JSON object), null for none.
 */
public record ClaimedJob(long id, String queue, String kind, String argsJson, int priority, int attempt,
                         int maxAttempts, Instant createdAt, long runAtMicros, Long workflowId, String workflowStep,
                         String concurrencyKey, String traceContext) {

    /** A job outside any workflow, without a concurrency key. */
    public ClaimedJob(long id, String queue, String kind, String argsJson, int priority, int attempt,
                      int maxAttempts, Instant createdAt, long runAtMicros) {
        this(id, queue, kind, argsJson, priority, attempt, maxAttempts, createdAt, runAtMicros, null, null, null, null);
    }

    /** Claim order, as claim.sql's ORDER BY: lower priority numbers first, then due time, then id. */
    public static final Comparator<ClaimedJob> CLAIM_ORDER = (a, b) -> {
        int c = Integer.compare(a.priority, b.priority);
        if (c == 0) {
            c = Long.compare(a.runAtMicros, b.runAtMicros);
        }
        return c != 0 ? c : Long.compare(a.id, b.id);
    };
}
