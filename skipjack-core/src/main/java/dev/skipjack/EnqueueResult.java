package dev.skipjack;

/**
 * What an enqueue did: the job's id and whether it was a duplicate of a unique job (F-10) that
 * already held its key, in which case {@code id} is that existing job's and nothing was inserted.
 * Jobs enqueued without {@link EnqueueOptions#withUnique(Unique)} are never duplicates.
 */
public record EnqueueResult(long id, boolean duplicate) {
}
