package dev.skipjack.spring;

import dev.skipjack.Skipjack;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Skipjack's health on Spring Boot 4, whose health API moved to
 * {@code org.springframework.boot.health.contributor} (module {@code spring-boot-health}): the
 * same check, status and details as {@link SkipjackHealthIndicator}, the Boot 3 indicator.
 */
public class SkipjackBoot4HealthIndicator extends AbstractHealthIndicator {

    private final SkipjackHealthCheck check;

    /**
     * The health of {@code skipjack} and its {@code workers}.
     *
     * @param skipjack the client
     * @param workers  the workers' lifecycle
     */
    public SkipjackBoot4HealthIndicator(Skipjack skipjack, SkipjackWorkers workers) {
        super("Skipjack health check failed");
        this.check = new SkipjackHealthCheck(skipjack, workers);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        SkipjackHealthCheck.Result result = check.check();
        (result.up() ? builder.up() : builder.down()).withDetails(result.details());
    }
}
