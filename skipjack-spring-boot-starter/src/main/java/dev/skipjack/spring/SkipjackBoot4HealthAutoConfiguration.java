package dev.skipjack.spring;

import dev.skipjack.Skipjack;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code skipjack} health indicator on Spring Boot 4 ({@link SkipjackBoot4HealthIndicator}):
 * configured when the application has Boot 4's {@code spring-boot-health} (the actuator brings it)
 * and a Skipjack client. {@link SkipjackHealthAutoConfiguration} is its Boot 3 twin; each is
 * conditional on its own Boot's health classes, so one starter jar serves both and at most one
 * of them applies. Off with {@code management.health.skipjack.enabled=false}, as on Boot 3.
 */
@AutoConfiguration(after = SkipjackAutoConfiguration.class,
        beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean({Skipjack.class, SkipjackWorkers.class})
@ConditionalOnEnabledHealthIndicator("skipjack")
public class SkipjackBoot4HealthAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public SkipjackBoot4HealthAutoConfiguration() {
    }

    /**
     * The indicator; its bean name makes the health component {@code skipjack}.
     *
     * @param skipjack the client
     * @param workers  the workers' lifecycle
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "skipjackHealthIndicator")
    public SkipjackBoot4HealthIndicator skipjackHealthIndicator(Skipjack skipjack, SkipjackWorkers workers) {
        return new SkipjackBoot4HealthIndicator(skipjack, workers);
    }
}
