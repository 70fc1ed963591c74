package dev.skipjack;

import java.sql.Connection;

/**
 * Runs jobs of one kind in transactional mode (F-4): the claim, everything the handler does on
 * {@code tx}, and the job's completion commit in one transaction. If the handler throws, its work
 * is rolled back and the failed attempt recorded; if the worker dies, the whole transaction rolls
 * back and the job is available again at once, with nothing half-done.
 *
 * <p>Only {@link Outcome#complete()} (or {@code null}) keeps the handler's writes; any other
 * outcome rolls them back and records the outcome. Do not commit, roll back or close {@code tx}.
 */
@FunctionalInterface
public interface TransactionalJobHandler<T> {
    Outcome handle(Job<T> job, Connection tx) throws Exception;
}
