package dev.skipjack;

import java.time.Duration;

/**
 * Observes what a client does, for metrics and tracing: jobs enqueued, claim rounds, jobs started
 * and finished, expired leases rescued. Register one or more with
 * {@link Skipjack.Builder#listener(SkipjackListener)}; every method has a no-op default, so a
 * listener overrides only what it needs ({@code skipjack-micrometer}'s {@code SkipjackMetrics} is
 * one).
 *
 * <p>Methods are called on Skipjack's own threads (job threads, a queue's dispatcher, the
 * maintenance thread) and on the threads that enqueue, often from several at once: they must be
 * thread-safe and quick, and must not block (a slow listener slows the job path that calls it).
 * An exception a listener throws is caught and logged (the first one per listener as a warning,
 * later ones at debug level); it never stops a worker loop, fails an enqueue or changes a job's
 * outcome. A client without listeners does no work for them on its job path.
 *
 * <p>Events describe this process only: each node reports the jobs it enqueues, claims and runs,
 * and only the maintenance leader reports rescues.
 */
public interface SkipjackListener {

    /** How one run of a handler ended, as {@link #jobFinished} reports it. */
    enum JobResult {
        /** The handler completed the job ({@link Outcome#complete()}). */
        COMPLETED,
        /** The attempt failed (the handler threw, timed out or asked for {@link Outcome#retry}) and the job will run again. */
        FAILED,
        /** The handler snoozed the job ({@link Outcome#snooze}): it runs again later, the attempt given back. */
        SNOOZED,
        /** The job ended discarded: the handler discarded it, its last attempt failed, or it cannot run as stored. */
        DISCARDED,
        /** The handler cancelled the job ({@link Outcome#cancel}). */
        CANCELLED
    }

    /**
     * {@code count} jobs of {@code kind} were inserted into {@code queue} by one enqueue call of this
     * client (duplicates of unique jobs are not counted; a workflow's jobs are). Called after the
     * client's own transaction committed; for an enqueue in the caller's transaction, after the
     * insert, so a rollback afterwards is not reported. Jobs enqueued by cron ticks are not reported.
     */
    default void jobsEnqueued(String queue, String kind, int count) {
    }

    /**
     * One lease-mode claim round of {@code queue} took {@code count} jobs (at least one: rounds that
     * found nothing are not reported). Transactional jobs are claimed one at a time in their own
     * transaction and are not reported here.
     */
    default void jobsClaimed(String queue, int count) {
    }

    /**
     * A claimed job is about to run on this node. {@code queueWait} is how long it was due before it
     * started: this node's clock at the start minus the job's due time (its {@code run_at} on the
     * database clock, which a retry, snooze or delay moves), never negative; the two clocks'
     * difference, if any, is in it.
     */
    default void jobStarted(String queue, String kind, int attempt, Duration queueWait) {
    }

    /**
     * A job's run on this node ended with {@code result} after {@code executionTime} (reading the
     * args, calling the handler, deciding the outcome; not writing it). Reported when the outcome
     * is decided, before it is written: an outcome the database does not take (a transactional
     * commit that fails, a lease lost meanwhile) was still reported as decided.
     */
    default void jobFinished(String queue, String kind, int attempt, JobResult result, Duration executionTime) {
    }

    /**
     * A rescue round of the maintenance leader returned {@code count} jobs whose lease expired
     * (their worker died or stalled) to their queues, or discarded those out of attempts.
     */
    default void leasesRescued(int count) {
    }
}
