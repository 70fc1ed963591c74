/**
 * Skipjack's whole public API: a durable job queue in the application's database.
 *
 * <p>{@link dev.skipjack.Skipjack} is the client, made with {@link dev.skipjack.Skipjack.Builder}:
 * it enqueues jobs ({@link dev.skipjack.JobKind}, {@link dev.skipjack.EnqueueOptions}), runs
 * them through handlers ({@link dev.skipjack.JobHandler}, {@link dev.skipjack.TransactionalJobHandler},
 * {@link dev.skipjack.TwoPhaseJobHandler}) that return an {@link dev.skipjack.Outcome}, and gives
 * operators {@link dev.skipjack.SkipjackAdmin}. Everything under {@code dev.skipjack.internal} is
 * free to change between versions.
 *
 * <h2>Observing a client</h2>
 *
 * <p>A {@link dev.skipjack.SkipjackListener} registered with
 * {@link dev.skipjack.Skipjack.Builder#listener(dev.skipjack.SkipjackListener)} is told of jobs
 * enqueued (queue, kind, count), claim rounds (queue, jobs taken), jobs started (queue, kind,
 * attempt, time waited since due), runs finished (their {@link dev.skipjack.SkipjackListener.JobResult}
 * and execution time) and expired leases rescued. Several may be registered. Listeners are called
 * on Skipjack's threads and must be quick and thread-safe; what one throws is logged once and
 * otherwise ignored. {@code skipjack-micrometer} turns these events into Micrometer meters.
 */
package dev.skipjack;
