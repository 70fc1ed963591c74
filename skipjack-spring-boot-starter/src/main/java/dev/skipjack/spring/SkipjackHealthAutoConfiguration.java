package dev.skipjack.spring;

import dev.skipjack.Skipjack;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code skipjack} health indicator ({@link SkipjackHealthIndicator}), configured only when the
 * application has Spring Boot's actuator on its class path and a Skipjack client was configured.
 * Shown at {@code /actuator/health} as the component {@code skipjack}; off with
 * {@code management.health.skipjack.enabled=false}. This is the Spring Boot 3 one, conditional on
 * Boot 3's health classes; {@link SkipjackBoot4HealthAutoConfiguration} is the Boot 4 one.
 */
@AutoConfiguration(after = SkipjackAutoConfiguration.class,
        beforeName = "org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration")
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean({Skipjack.class, SkipjackWorkers.class})
@ConditionalOnEnabledHealthIndicator("skipjack")
public class SkipjackHealthAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public SkipjackHealthAutoConfiguration() {
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
    public SkipjackHealthIndicator skipjackHealthIndicator(Skipjack skipjack, SkipjackWorkers workers) {
        return new SkipjackHealthIndicator(skipjack, workers);
    }
}
