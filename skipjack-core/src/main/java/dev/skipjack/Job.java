package dev.skipjack;

import java.time.Instant;

/**
 * One execution of a job, as its handler sees it.
 *
 * @param id          the job's id
 * @param queue       the queue it was claimed from
 * @param kind        the handler's name
 * @param args        the arguments, deserialized to the type registered for the kind
 * @param priority    0 runs first
 * @param attempt     this execution's attempt number, starting at 1
 * @param maxAttempts attempts allowed before the job is discarded
 * @param createdAt   when it was enqueued (database clock)
 * @param workerId    the worker running this execution
 */
public record Job<T>(long id, String queue, String kind, T args, int priority, int attempt, int maxAttempts,
                     Instant createdAt, String workerId) {

    /** True when this is the last attempt the job has. */
    public boolean isLastAttempt() {
        return attempt >= maxAttempts;
    }
}
