package dev.skipjack.spring;

import dev.skipjack.Skipjack;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Skipjack's health: the database reachable (one read of the queues through
 * {@link dev.skipjack.SkipjackAdmin#queues()}; an exception is DOWN with its message), this node's
 * workers running, and per queue its job counts and whether a running node serves it.
 *
 * <p>UP when the database answers and the workers run, or this application only enqueues; DOWN
 * when the database does not answer, or the workers should run and do not (not yet started, or
 * stopped). Details:
 * <pre>
 * database: "reachable"
 * workers:  "running" | "stopped" | "disabled (enqueue only)"
 * workerId: this node's worker id
 * queues:   { name: { available, running, scheduled, retryable, waiting, servedHere, servedByNodes, paused } }
 * </pre>
 * The age of a queue's oldest available job is not reported: the core's admin API does not give it yet.
 *
 * <p>This is the Spring Boot 3 indicator ({@code org.springframework.boot.actuate.health});
 * on Boot 4 the starter configures {@link SkipjackBoot4HealthIndicator}, the same check.
 */
public class SkipjackHealthIndicator extends AbstractHealthIndicator {

    private final SkipjackHealthCheck check;

    /**
     * The health of {@code skipjack} and its {@code workers}.
     *
     * @param skipjack the client
     * @param workers  the workers' lifecycle
     */
    public SkipjackHealthIndicator(Skipjack skipjack, SkipjackWorkers workers) {
        super("Skipjack health check failed");
        this.check = new SkipjackHealthCheck(skipjack, workers);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        SkipjackHealthCheck.Result result = check.check();
        (result.up() ? builder.up() : builder.down()).withDetails(result.details());
    }
}
