package dev.skipjack;

/**
 * Runs jobs of one kind in lease mode (the default): the job is claimed and committed as running
 * with a lease that Skipjack extends while {@link #handle} runs, and its outcome is recorded after.
 * If the worker dies, the job comes back when the lease expires (at-least-once).
 *
 * <p>Throwing fails the attempt: the error is recorded and the job retried after the kind's
 * backoff until it runs out of attempts. Return an {@link Outcome} to say anything else.
 */
@FunctionalInterface
public interface JobHandler<T> {
    /**
     * @return the outcome; {@code null} means {@link Outcome#complete()}
     */
    Outcome handle(Job<T> job) throws Exception;
}
