package dev.skipjack.spring;

import dev.skipjack.Skipjack;
import dev.skipjack.micrometer.SkipjackMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Skipjack's meters ({@link SkipjackMetrics}, from {@code skipjack-micrometer}) in the application's
 * {@link MeterRegistry}, configured only when that module is on the class path and the
 * application has a registry bean (Spring Boot's actuator makes one) and a Skipjack client. The
 * metrics are a {@code SkipjackListener} bean, which {@link SkipjackAutoConfiguration} registers
 * on the client it builds; once every bean exists, the queue-depth gauges are given the client's
 * admin. An application that builds its own {@code Skipjack} bean registers the
 * {@code skipjackMetrics} bean as its listener itself.
 */
// Boot 3 names, then Boot 4's (module spring-boot-micrometer-metrics); only one set exists.
@AutoConfiguration(after = SkipjackAutoConfiguration.class, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.prometheus.PrometheusMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration"})
@ConditionalOnClass({SkipjackMetrics.class, MeterRegistry.class})
@ConditionalOnBean({MeterRegistry.class, Skipjack.class})
public class SkipjackMetricsAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public SkipjackMetricsAutoConfiguration() {
    }

    /**
     * The meters, recorded in the application's registry.
     *
     * @param registry the application's registry
     * @return the metrics, a listener of the client
     */
    @Bean
    @ConditionalOnMissingBean
    public SkipjackMetrics skipjackMetrics(MeterRegistry registry) {
        return new SkipjackMetrics(registry);
    }

    /**
     * Gives the queue-depth gauges the client's admin once every singleton exists: the client
     * needs the metrics as its listener first, so the metrics cannot need the client.
     *
     * @param metrics  the meters
     * @param skipjack the client
     * @return the step run after the singletons are created
     */
    @Bean
    public SmartInitializingSingleton skipjackQueueDepthMetrics(SkipjackMetrics metrics, ObjectProvider<Skipjack> skipjack) {
        return () -> skipjack.ifUnique(client -> metrics.monitorQueueDepth(client.admin()));
    }
}
