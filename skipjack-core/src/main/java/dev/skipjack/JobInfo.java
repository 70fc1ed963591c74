package dev.skipjack;

import java.time.Instant;
import java.util.List;

/**
 * A job row as stored, for inspection. Times are the database's. {@code uniqueKey} is the key of a
 * {@link Unique unique} job (F-10), null for others; {@code tags} and {@code metadataJson} are what
 * {@link EnqueueOptions#withTags} and {@link EnqueueOptions#withMetadata} gave ({@code []} and
 * {@code {}} when nothing). {@code workflowId} and {@code workflowStep}
 * place a workflow's job (F-14), null for others; {@code outputJson} is what its handler recorded
 * with {@link Outcome#complete(Object)}, null when none. {@code concurrencyKey} is the key of a
 * limited, rate-limited or ordered job as stored ({@code kind:...}, {@code kind-rate:...},
 * {@code key:...}, {@code rate:...}, {@code seq:...}; F-12, F-13), null for others: a
 * {@code waiting} job with one waits for a slot of that key ({@link SkipjackAdmin#concurrencyKeys()}).
 * {@code stopRequested} is {@link JobState#CANCELLED} or {@link JobState#DISCARDED} for a running job an
 * operator cancelled or discarded ({@link SkipjackAdmin#cancel}): it stays running, holding its keys, until
 * its handler has stopped; null otherwise.
 */
public record JobInfo(long id, String queue, String kind, String argsJson, int priority, JobState state,
                      Instant runAt, int attempt, int maxAttempts, List<JobError> errors, String claimedBy,
                      Instant leaseUntil, Instant createdAt, Instant attemptedAt, Instant finishedAt, String uniqueKey,
                      List<String> tags, String metadataJson, Long workflowId, String workflowStep,
                      String outputJson, String concurrencyKey, JobState stopRequested) {
}
