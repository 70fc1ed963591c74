package dev.skipjack.cli.demo.features;

import java.util.Set;

/**
 * One feature exercised by {@code skipjack demo --features}: it runs the feature on real clients
 * of the database in {@link FeatureContext}, then judges it from what the database holds (the jobs
 * table, read through the admin API), never from what the check counted in memory, so that a
 * broken feature makes it fail.
 *
 * <p>{@link FeatureChecks#registry()} lists the checks; {@link FeatureChecks#ORDER} is the order of
 * the RESULT line. A new feature is one more class implementing this interface, added to both.
 */
public interface FeatureCheck {

    /** The name in the RESULT line ({@code unique}, {@code cron}, ...): one of {@link FeatureChecks#ORDER}. */
    String name();

    /**
     * The job kinds this check enqueues: a new demo run removes earlier runs' jobs of these kinds,
     * and refuses a schema holding jobs of other kinds.
     */
    Set<String> kinds();

    /**
     * Runs the feature and judges it. An exception counts as a failure; the runner reports it.
     * Clients the check starts are closed before it returns.
     */
    CheckResult run(FeatureContext context) throws Exception;
}
