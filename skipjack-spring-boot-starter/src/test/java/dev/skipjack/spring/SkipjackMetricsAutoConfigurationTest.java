package dev.skipjack.spring;

import dev.skipjack.JobKind;
import dev.skipjack.Skipjack;
import dev.skipjack.micrometer.SkipjackMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * When the starter binds Skipjack's meters: with skipjack-micrometer and a registry bean; not
 * without a registry, not without the module, and not when the application defines its own.
 */
class SkipjackMetricsAutoConfigurationTest {

    record Report(int id) {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    SkipjackAutoConfiguration.class, SkipjackMetricsAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + TestPostgres.jdbcUrl(),
                    "skipjack.schema=" + TestPostgres.freshSchema());

    private final ApplicationContextRunner withRegistry = runner.withConfiguration(AutoConfigurations.of(
            MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class));

    @Test
    void bindsTheMetersWhenTheApplicationHasARegistry() {
        withRegistry.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(SkipjackMetrics.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Skipjack skipjack = context.getBean(Skipjack.class);
            // The metrics are the client's listener...
            skipjack.enqueue(JobKind.of("report", Report.class), new Report(7));
            assertThat(registry.get("skipjack.jobs.enqueued").tags("queue", "default", "kind", "report").counter()
                    .count()).isEqualTo(1);
            // ...and their queue-depth gauges were given its admin once the beans existed.
            assertThat(registry.get("skipjack.queue.depth").tags("queue", "default", "state", "available").gauge())
                    .isNotNull();
            assertThatThrownBy(() -> context.getBean(SkipjackMetrics.class).monitorQueueDepth(skipjack.admin()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already monitored");
        });
    }

    @Test
    void backsOffWithoutARegistry() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SkipjackMetrics.class));
    }

    @Test
    void backsOffWithoutSkipjackMicrometer() {
        withRegistry.withClassLoader(new FilteredClassLoader(SkipjackMetrics.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("skipjackMetrics"));
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwn() {
        withRegistry.withBean("myMetrics", SkipjackMetrics.class, () -> new SkipjackMetrics(new io.micrometer.core
                        .instrument.simple.SimpleMeterRegistry()))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(SkipjackMetrics.class)
                        .hasBean("myMetrics"));
    }
}
