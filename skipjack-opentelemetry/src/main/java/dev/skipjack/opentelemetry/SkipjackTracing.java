package dev.skipjack.opentelemetry;

import dev.skipjack.Job;
import dev.skipjack.JobInterceptor;
import dev.skipjack.Outcome;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;

import java.util.Map;
import java.util.Objects;

/**
 * Traces Skipjack jobs with OpenTelemetry, as a {@link JobInterceptor}: at enqueue the current
 * span's context is stored with the job through the application's propagator (W3C
 * {@code traceparent} and {@code tracestate} with the usual setup), and each run of the handler is
 * a {@link SpanKind#CONSUMER} span named {@code process <kind>}, a child of the enqueuing span (or,
 * with {@link Relation#LINK}, a new trace linked to it). A job enqueued without a current span
 * runs in a new root span. The span is current while the handler runs, so the handler's own spans
 * (JDBC, HTTP clients) are its children.
 *
 * <pre>{@code
 * Skipjack skipjack = Skipjack.builder(dataSource)
 *         .interceptor(SkipjackTracing.create(openTelemetry))
 *         ...
 * }</pre>
 *
 * <p>Attributes follow OpenTelemetry's messaging conventions: {@code messaging.system}
 * {@code skipjack}, {@code messaging.operation.name}/{@code .type} {@code process},
 * {@code messaging.destination.name} the queue, {@code messaging.message.id} the job id; and
 * Skipjack's own {@code skipjack.job.kind} and {@code skipjack.job.attempt}. A handler that throws
 * records the exception and ends the span with status {@code ERROR} and {@code error.type}; one
 * that asks for a retry or discards the job ends it with {@code ERROR} and the reason. See
 * docs/tracing.md.
 */
public final class SkipjackTracing implements JobInterceptor {

    /** How a handler's span relates to the span that enqueued its job. */
    public enum Relation {
        /**
         * The handler's span is a child of the enqueuing span, in its trace: the default, for jobs
         * that are part of the request that enqueued them.
         */
        CHILD,
        /**
         * The handler's span starts a new trace with a link to the enqueuing span: for jobs that
         * run long after their enqueue (delays, many retries, schedules) and would otherwise keep a
         * trace open for hours.
         */
        LINK
    }

    /** The instrumentation scope's name of the tracer. */
    public static final String INSTRUMENTATION_NAME = "dev.skipjack.opentelemetry";

    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<String> JOB_KIND = AttributeKey.stringKey("skipjack.job.kind");
    static final AttributeKey<Long> JOB_ATTEMPT = AttributeKey.longKey("skipjack.job.attempt");
    static final AttributeKey<String> JOB_OUTCOME = AttributeKey.stringKey("skipjack.job.outcome");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private static final TextMapSetter<Map<String, String>> SETTER = (carrier, key, value) -> {
        if (carrier != null) {
            carrier.put(key, value);
        }
    };

    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;
    private final Relation relation;

    private SkipjackTracing(OpenTelemetry openTelemetry, Relation relation) {
        this.tracer = openTelemetry.getTracer(INSTRUMENTATION_NAME);
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
        this.relation = relation;
    }

    /** Tracing through {@code openTelemetry}'s tracer and propagator; handler spans are children of the enqueuing span. */
    public static SkipjackTracing create(OpenTelemetry openTelemetry) {
        return create(openTelemetry, Relation.CHILD);
    }

    /** As {@link #create(OpenTelemetry)}, with handler spans related to the enqueuing span as {@code relation} says. */
    public static SkipjackTracing create(OpenTelemetry openTelemetry, Relation relation) {
        return new SkipjackTracing(Objects.requireNonNull(openTelemetry, "openTelemetry"),
                Objects.requireNonNull(relation, "relation"));
    }

    /**
     * Stores the current span's context with the jobs being enqueued; nothing when there is no
     * valid current span (the handler then runs in a new root span).
     */
    @Override
    public void onEnqueue(Map<String, String> context) {
        Context current = Context.current();
        if (!Span.fromContext(current).getSpanContext().isValid()) {
            return;
        }
        propagator.inject(current, context, SETTER);
    }

    @Override
    public Outcome aroundHandler(Job<?> job, Map<String, String> context, Handler handler) throws Exception {
        SpanBuilder builder = tracer.spanBuilder("process " + job.kind())
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute(MESSAGING_SYSTEM, "skipjack")
                .setAttribute(OPERATION_NAME, "process")
                .setAttribute(OPERATION_TYPE, "process")
                .setAttribute(DESTINATION, job.queue())
                .setAttribute(MESSAGE_ID, Long.toString(job.id()))
                .setAttribute(JOB_KIND, job.kind())
                .setAttribute(JOB_ATTEMPT, (long) job.attempt());
        // Extracted into the root context, never the job thread's: whatever a previous job or the
        // thread left current must not become this job's parent. Baggage stored with the span
        // context comes back with it.
        Context stored = context.isEmpty() ? Context.root() : propagator.extract(Context.root(), context, GETTER);
        SpanContext enqueuer = Span.fromContext(stored).getSpanContext();
        if (!enqueuer.isValid()) {
            builder.setNoParent();
        } else if (relation == Relation.CHILD) {
            builder.setParent(stored);
        } else {
            builder.setNoParent().addLink(enqueuer);
        }
        Span span = builder.startSpan();
        try (Scope ignored = stored.with(span).makeCurrent()) {
            Outcome outcome = handler.run();
            if (outcome != null) {
                span.setAttribute(JOB_OUTCOME, outcome.type().name().toLowerCase(java.util.Locale.ROOT));
                if (outcome.type() == Outcome.Type.RETRY || outcome.type() == Outcome.Type.DISCARD) {
                    span.setStatus(StatusCode.ERROR, outcome.reason());
                }
            }
            return outcome;
        } catch (Exception | Error e) {
            span.recordException(e);
            span.setAttribute(ERROR_TYPE, e.getClass().getName());
            span.setStatus(StatusCode.ERROR, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            throw e;
        } finally {
            span.end();
        }
    }
}
