package dev.skipjack.internal.claim;

import java.time.Instant;
import java.util.Comparator;

/** A job row as the claim statement returns it; args still JSON text, run_at in epoch microseconds. */
public record ClaimedJob(long id, String queue, String kind, String argsJson, int priority, int attempt,
                         int maxAttempts, Instant createdAt, long runAtMicros) {

    /** Claim order, as claim.sql's ORDER BY: lower priority numbers first, then due time, then id. */
    public static final Comparator<ClaimedJob> CLAIM_ORDER = (a, b) -> {
        int c = Integer.compare(a.priority, b.priority);
        if (c == 0) {
            c = Long.compare(a.runAtMicros, b.runAtMicros);
        }
        return c != 0 ? c : Long.compare(a.id, b.id);
    };
}
