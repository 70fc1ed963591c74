package dev.skipjack;

import java.time.Instant;
import java.util.List;

/** A job row as stored, for inspection. Times are the database's. */
public record JobInfo(long id, String queue, String kind, String argsJson, int priority, JobState state,
                      Instant runAt, int attempt, int maxAttempts, List<JobError> errors, String claimedBy,
                      Instant leaseUntil, Instant createdAt, Instant attemptedAt, Instant finishedAt) {
}
