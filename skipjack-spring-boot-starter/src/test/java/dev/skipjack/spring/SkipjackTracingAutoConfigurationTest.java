package dev.skipjack.spring;

import dev.skipjack.Job;
import dev.skipjack.JobHandler;
import dev.skipjack.JobKind;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.opentelemetry.SkipjackTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * When the starter traces Skipjack's jobs: with skipjack-opentelemetry and an OpenTelemetry bean,
 * the client it builds runs a handler in a child span of the span that enqueued the job; not
 * without an OpenTelemetry bean, and not without the module.
 */
class SkipjackTracingAutoConfigurationTest {

    record Report(int id) {
    }

    static final JobKind<Report> REPORT = JobKind.of("report", Report.class);

    @HandlesKind("report")
    static class ReportHandler implements JobHandler<Report> {
        @Override
        public Outcome handle(Job<Report> job) {
            return Outcome.complete();
        }
    }

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    SkipjackAutoConfiguration.class, SkipjackTracingAutoConfiguration.class))
            .withBean(ReportHandler.class)
            .withPropertyValues("spring.datasource.url=" + TestPostgres.jdbcUrl(),
                    "skipjack.schema=" + TestPostgres.freshSchema(), "skipjack.queues.default=2",
                    "skipjack.poll-interval=50ms", "skipjack.shutdown-timeout=5s");

    private final ApplicationContextRunner withOpenTelemetry = runner.withBean(OpenTelemetry.class,
            () -> OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
                    .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build());

    @Test
    void aHandlerRunsInAChildOfTheSpanThatEnqueuedItsJob() {
        withOpenTelemetry.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(SkipjackTracing.class);
            Skipjack skipjack = context.getBean(Skipjack.class);
            Span enqueue = context.getBean(OpenTelemetry.class).getTracer("test").spanBuilder("enqueue").startSpan();
            long id;
            try (Scope ignored = enqueue.makeCurrent()) {
                id = skipjack.enqueue(REPORT, new Report(7));
            } finally {
                enqueue.end();
            }
            String jobId = Long.toString(id);
            await().atMost(Duration.ofSeconds(20)).until(() -> exporter.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getName().equals("process report")));
            SpanData handler = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getName().equals("process report")).findFirst().orElseThrow();
            assertThat(handler.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey(
                    "messaging.message.id"))).isEqualTo(jobId);
            assertThat(handler.getTraceId()).isEqualTo(enqueue.getSpanContext().getTraceId());
            assertThat(handler.getParentSpanId()).isEqualTo(enqueue.getSpanContext().getSpanId());
        });
    }

    @Test
    void backsOffWithoutAnOpenTelemetryBean() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SkipjackTracing.class)
                .doesNotHaveBean("skipjackTracingCustomizer"));
    }

    @Test
    void backsOffWithoutSkipjackOpenTelemetry() {
        withOpenTelemetry.withClassLoader(new FilteredClassLoader(SkipjackTracing.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("skipjackTracing")
                        .doesNotHaveBean("skipjackTracingCustomizer"));
    }
}
