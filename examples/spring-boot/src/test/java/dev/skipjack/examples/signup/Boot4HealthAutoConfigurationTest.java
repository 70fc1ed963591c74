package dev.skipjack.examples.signup;

import dev.skipjack.Skipjack;
import dev.skipjack.spring.SkipjackBoot4HealthAutoConfiguration;
import dev.skipjack.spring.SkipjackBoot4HealthIndicator;
import dev.skipjack.spring.SkipjackWorkers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's health on Spring Boot 4, beyond the sample's UP: of its two health
 * auto-configurations only the Boot 4 one applies, {@code management.health.skipjack.enabled=false}
 * turns it off, and workers that should run and do not make it DOWN. Around the sample's client,
 * so no second database starts.
 */
class Boot4HealthAutoConfigurationTest extends SignupApplicationTestSupport {

    @Autowired
    ApplicationContext application;

    @Test
    void onlyTheBoot4IndicatorIsConfigured() {
        assertThat(application.getBean("skipjackHealthIndicator")).isInstanceOf(SkipjackBoot4HealthIndicator.class);
        // By name: the Boot 3 auto-configuration's class cannot even be introspected on Boot 4.
        assertThat(application.containsBean("dev.skipjack.spring.SkipjackHealthAutoConfiguration")).isFalse();
        assertThat(application.containsBean(SkipjackBoot4HealthAutoConfiguration.class.getName())).isTrue();
    }

    @Test
    void theIndicatorCanBeTurnedOff() {
        // Producer-only workers: this small context neither starts nor closes the sample's client.
        SkipjackWorkers producerOnly = new SkipjackWorkers(skipjack, false, List.of());
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SkipjackBoot4HealthAutoConfiguration.class))
                // No destroy method: Spring would close an AutoCloseable bean, the sample's client with it.
                .withBean(Skipjack.class, () -> skipjack, definition -> definition.setDestroyMethodName(""))
                .withBean(SkipjackWorkers.class, () -> producerOnly)
                .withPropertyValues("management.health.skipjack.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SkipjackBoot4HealthIndicator.class));
    }

    @Test
    void workersThatShouldRunAndDoNotAreDown() {
        SkipjackWorkers neverStarted = new SkipjackWorkers(skipjack, true, List.of());

        Health health = new SkipjackBoot4HealthIndicator(skipjack, neverStarted).health(true);

        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("workers", "stopped").containsEntry("database", "reachable");
    }
}
