package dev.skipjack.internal.claim;

import java.time.Instant;

/** A job row as the claim statement returns it; args still JSON text. */
public record ClaimedJob(long id, String queue, String kind, String argsJson, int priority, int attempt,
                         int maxAttempts, Instant createdAt) {
}
