package dev.skipjack.examples.signup;

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
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tracing on Spring Boot 4: with {@code skipjack-opentelemetry} on the class path and an
 * {@link OpenTelemetry} bean, the starter traces the client it builds, and the welcome-email
 * handler runs in a child span of the span around the {@code @Transactional} sign-up that
 * enqueued it (docs/tracing.md), read from an in-memory exporter.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = {
        "signup.embedded-database=true", "skipjack.poll-interval=200ms"})
class TracingTest {

    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

    @TestConfiguration
    static class InMemoryTracing {
        @Bean
        OpenTelemetry openTelemetry() {
            return OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
                    .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                    .build();
        }
    }

    @Autowired
    OpenTelemetry openTelemetry;

    @Autowired
    SignupService signups;

    @Test
    void theWelcomeEmailHandlerRunsInAChildSpanOfTheSignUpThatEnqueuedIt() {
        Span request = openTelemetry.getTracer("test").spanBuilder("POST /signups").startSpan();
        try (Scope ignored = request.makeCurrent()) {
            signups.signUp("gus@example.com", null);
        } finally {
            request.end();
        }

        SpanData handler = await().atMost(Duration.ofSeconds(20)).until(() -> SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("process welcome-email")).findFirst().orElse(null), s -> s != null);
        assertThat(handler.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
        assertThat(handler.getParentSpanId()).as("parent of the handler's span").isEqualTo(request.getSpanContext().getSpanId());
    }
}
