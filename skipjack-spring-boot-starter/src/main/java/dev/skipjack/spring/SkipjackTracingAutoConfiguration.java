package dev.skipjack.spring;

import dev.skipjack.opentelemetry.SkipjackTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Traces Skipjack's jobs ({@link SkipjackTracing}, from {@code skipjack-opentelemetry}) through the
 * application's {@link OpenTelemetry}, configured only when that module is on the class path and
 * the application has an {@code OpenTelemetry} bean (Spring Boot's actuator with
 * {@code micrometer-tracing-bridge-otel}, the OpenTelemetry Spring Boot starter, or the
 * application's own). The tracing is added to the client {@link SkipjackAutoConfiguration} builds
 * through a {@link SkipjackBuilderCustomizer}; an application that builds its own {@code Skipjack}
 * bean adds the {@code skipjackTracing} bean with {@code Builder.interceptor} itself.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration",
        "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
        "io.opentelemetry.instrumentation.spring.autoconfigure.OpenTelemetryAutoConfiguration"})
@ConditionalOnClass({SkipjackTracing.class, OpenTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
public class SkipjackTracingAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public SkipjackTracingAutoConfiguration() {
    }

    /**
     * The tracing interceptor: handler spans are children of the span that enqueued the job.
     *
     * @param openTelemetry the application's OpenTelemetry
     * @return the interceptor
     */
    @Bean
    @ConditionalOnMissingBean
    public SkipjackTracing skipjackTracing(OpenTelemetry openTelemetry) {
        return SkipjackTracing.create(openTelemetry);
    }

    /**
     * Adds the tracing to the client the starter builds.
     *
     * @param tracing the interceptor
     * @return the customizer
     */
    @Bean
    public SkipjackBuilderCustomizer skipjackTracingCustomizer(SkipjackTracing tracing) {
        return builder -> builder.interceptor(tracing);
    }
}
