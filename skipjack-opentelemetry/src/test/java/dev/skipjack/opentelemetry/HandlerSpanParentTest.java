package dev.skipjack.opentelemetry;

import dev.skipjack.CronSchedule;
import dev.skipjack.DatabaseClock;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.JobState;
import dev.skipjack.KindOptions;
import dev.skipjack.RetryPolicy;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.support.EveryBackendTest;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A trace created around an enqueue is the parent of the handler's span (same trace id, parent
 * span id the enqueuing span's), on every enqueue path and every backend; a job enqueued with no
 * span runs in a new root span; a failing handler's span records the error; the user's metadata,
 * even a {@code traceparent} key of its own, is neither touched nor taken for the job's context.
 * Spans are read from the SDK's in-memory exporter.
 */
class HandlerSpanParentTest extends EveryBackendTest {

    record Args(int n) {
    }

    static final JobKind<Args> WORK = JobKind.of("work", Args.class);
    static final JobKind<Args> TX = JobKind.of("tx-work", Args.class);
    static final JobKind<Args> FAILING = JobKind.of("failing", Args.class);
    static final Duration WAIT = Duration.ofSeconds(20);

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SdkTracerProvider tracerProvider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    private final OpenTelemetry otel = OpenTelemetrySdk.builder().setTracerProvider(tracerProvider)
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
    private final Tracer tracer = otel.getTracer("test");
    /** The span current in each job's handler, by job id. */
    private final Map<Long, SpanContext> currentInHandler = new ConcurrentHashMap<>();

    @AfterEach
    void closeSdk() {
        tracerProvider.close();
    }

    private Skipjack tracedClient(SkipjackTracing tracing) {
        return client(builder().queue("default", 2).interceptor(tracing)
                .handler(WORK, job -> {
                    currentInHandler.put(job.id(), Span.current().getSpanContext());
                    return Outcome.complete();
                })
                .transactionalHandler(TX, (job, c) -> {
                    currentInHandler.put(job.id(), Span.current().getSpanContext());
                    return Outcome.complete();
                })
                .handler(FAILING, KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ofMillis(100))), job -> {
                    throw new IllegalStateException("attempt " + job.attempt() + " fails");
                }));
    }

    /** Runs {@code enqueue} inside a new span named "enqueue"; returns what it returned and the span. */
    private <T> T inSpan(Supplier<T> enqueue, SpanContext[] spanOut) {
        Span span = tracer.spanBuilder("enqueue").startSpan();
        spanOut[0] = span.getSpanContext();
        try (Scope ignored = span.makeCurrent()) {
            return enqueue.get();
        } finally {
            span.end();
        }
    }

    /** The handler spans of the job, one per attempt, in attempt order. */
    private List<SpanData> handlerSpans(long jobId, int attempts) {
        await(attempts + " handler spans of job " + jobId, WAIT, () -> spansOf(jobId).size() >= attempts);
        return spansOf(jobId);
    }

    private List<SpanData> spansOf(long jobId) {
        return exporter.getFinishedSpanItems().stream()
                .filter(s -> Long.toString(jobId).equals(s.getAttributes().get(SkipjackTracing.MESSAGE_ID)))
                .sorted((a, b) -> Long.compare(a.getAttributes().get(SkipjackTracing.JOB_ATTEMPT),
                        b.getAttributes().get(SkipjackTracing.JOB_ATTEMPT)))
                .toList();
    }

    private static void assertChildOf(SpanData handler, SpanContext enqueue) {
        assertThat(handler.getTraceId()).as("same trace").isEqualTo(enqueue.getTraceId());
        assertThat(handler.getParentSpanId()).as("parent span").isEqualTo(enqueue.getSpanId());
    }

    @Test
    void aSpanAroundAnEnqueueIsTheParentOfTheHandlersSpan() {
        Skipjack s = tracedClient(SkipjackTracing.create(otel));
        SpanContext[] enqueue = new SpanContext[1];
        long id = inSpan(() -> s.enqueue(WORK, new Args(1), EnqueueOptions.defaults().withQueue("default")), enqueue);
        s.start();
        awaitState(s, id, JobState.COMPLETED, WAIT);

        SpanData handler = handlerSpans(id, 1).get(0);
        assertChildOf(handler, enqueue[0]);
        assertThat(handler.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(handler.getName()).isEqualTo("process work");
        assertThat(handler.getAttributes().asMap()).containsEntry(AttributeKey.stringKey("messaging.system"), "skipjack")
                .containsEntry(AttributeKey.stringKey("messaging.operation.type"), "process")
                .containsEntry(AttributeKey.stringKey("messaging.destination.name"), "default")
                .containsEntry(AttributeKey.stringKey("messaging.message.id"), Long.toString(id))
                .containsEntry(AttributeKey.stringKey("skipjack.job.kind"), "work")
                .containsEntry(AttributeKey.longKey("skipjack.job.attempt"), 1L)
                .containsEntry(AttributeKey.stringKey("skipjack.job.outcome"), "complete");
        assertThat(handler.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(currentInHandler.get(id)).as("the handler runs with its span current")
                .isEqualTo(handler.getSpanContext());
    }

    @Test
    void bulkCallerTransactionAndTransactionalModeJobsAreChildrenToo() throws Exception {
        Skipjack s = tracedClient(SkipjackTracing.create(otel));
        SpanContext[] bulkSpan = new SpanContext[1];
        List<Long> bulk = inSpan(() -> s.enqueueAll(List.of(JobRequest.of(WORK, new Args(1)),
                JobRequest.of(WORK, new Args(2)), JobRequest.of(TX, new Args(3)))), bulkSpan);
        SpanContext[] callerSpan = new SpanContext[1];
        long inCaller;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            inCaller = inSpan(() -> s.enqueue(c, WORK, new Args(4)), callerSpan);
            c.commit();
        }
        s.start();
        for (long id : bulk) {
            awaitState(s, id, JobState.COMPLETED, WAIT);
            assertChildOf(handlerSpans(id, 1).get(0), bulkSpan[0]);
        }
        awaitState(s, inCaller, JobState.COMPLETED, WAIT);
        assertChildOf(handlerSpans(inCaller, 1).get(0), callerSpan[0]);
    }

    @Test
    void aJobEnqueuedWithNoSpanRunsInANewRootSpan() {
        Skipjack s = tracedClient(SkipjackTracing.create(otel));
        long id = s.enqueue(WORK, new Args(1));
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE trace_context IS NULL"))
                .as("no span, nothing stored").isEqualTo(1);
        s.start();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        SpanData handler = handlerSpans(id, 1).get(0);
        assertThat(handler.getParentSpanContext().isValid()).as("a root span").isFalse();
        assertThat(handler.getTraceId()).isNotEqualTo(SpanContext.getInvalid().getTraceId());
        assertThat(handler.getLinks()).isEmpty();
    }

    @Test
    void aJobEnqueuedByACronScheduleRunsInARootSpanWhateverSpanStartedTheClient() {
        DatabaseClock clock = new DatabaseClock();
        Skipjack s = client(builder().clock(clock).cronInterval(Duration.ofMillis(100)).queue("default", 1)
                .interceptor(SkipjackTracing.create(otel))
                .handler(WORK, job -> Outcome.complete())
                .cron(CronSchedule.of("minutely", "* * * * *", WORK, new Args(9))));
        SpanContext[] starting = new SpanContext[1];
        inSpan(() -> {
            s.start();
            return null;
        }, starting);
        clock.advance(Duration.ofMinutes(1));
        await("a cron job's handler span", WAIT, () -> exporter.getFinishedSpanItems().stream()
                .anyMatch(span -> span.getName().equals("process work")));
        SpanData handler = exporter.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals("process work")).findFirst().orElseThrow();
        assertThat(handler.getParentSpanContext().isValid()).as("a root span").isFalse();
        assertThat(handler.getTraceId()).isNotEqualTo(starting[0].getTraceId());
    }

    @Test
    void aFailingHandlersSpanRecordsTheErrorAndEveryAttemptIsAChild() {
        Skipjack s = tracedClient(SkipjackTracing.create(otel));
        SpanContext[] enqueue = new SpanContext[1];
        long id = inSpan(() -> s.enqueue(FAILING, new Args(1), EnqueueOptions.defaults().withMaxAttempts(2)), enqueue);
        s.start();
        awaitState(s, id, JobState.DISCARDED, WAIT);
        List<SpanData> attempts = handlerSpans(id, 2);
        assertThat(attempts).hasSize(2);
        for (int i = 0; i < 2; i++) {
            SpanData span = attempts.get(i);
            assertChildOf(span, enqueue[0]);
            assertThat(span.getAttributes().get(SkipjackTracing.JOB_ATTEMPT)).isEqualTo(i + 1L);
            assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(span.getStatus().getDescription()).isEqualTo("attempt " + (i + 1) + " fails");
            assertThat(span.getAttributes().get(SkipjackTracing.ERROR_TYPE)).isEqualTo(IllegalStateException.class.getName());
            assertThat(span.getEvents()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
        }
    }

    @Test
    void theUsersMetadataSurvivesAndIsNotTakenForTheJobsContext() {
        Skipjack s = tracedClient(SkipjackTracing.create(otel));
        // A valid traceparent of another trace, in the user's own metadata.
        String usersOwn = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        SpanContext[] enqueue = new SpanContext[1];
        long id = inSpan(() -> s.enqueue(WORK, new Args(1),
                EnqueueOptions.defaults().withMetadata(Map.of("traceparent", usersOwn, "order", 7))), enqueue);
        s.start();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        assertChildOf(handlerSpans(id, 1).get(0), enqueue[0]);
        String metadata = s.find(id).orElseThrow().metadataJson().replace(" ", "");
        assertThat(metadata).contains("\"traceparent\":\"" + usersOwn + "\"").contains("\"order\":7");
        assertThat(metadata).doesNotContain(enqueue[0].getTraceId());
    }

    @Test
    void aJobInsertedWithPlainSqlAndATraceparentRunsAsItsChild() {
        Skipjack s = tracedClient(SkipjackTracing.create(otel));
        String traceId = "0af7651916cd43dd8448eb211c80319c";
        String spanId = "b7ad6b7169203331";
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, trace_context) VALUES ('default', 'work',"
                + " '{\"n\": 1}', '{\"traceparent\": \"00-" + traceId + "-" + spanId + "-01\"}')");
        long id = queryLong("SELECT max(id) FROM " + jobsTable());
        s.start();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        SpanData handler = handlerSpans(id, 1).get(0);
        assertThat(handler.getTraceId()).isEqualTo(traceId);
        assertThat(handler.getParentSpanId()).isEqualTo(spanId);
    }

    @Test
    void withLinkTheHandlerStartsANewTraceLinkedToTheEnqueuingSpan() {
        Skipjack s = tracedClient(SkipjackTracing.create(otel, SkipjackTracing.Relation.LINK));
        SpanContext[] enqueue = new SpanContext[1];
        long id = inSpan(() -> s.enqueue(WORK, new Args(1)), enqueue);
        s.start();
        awaitState(s, id, JobState.COMPLETED, WAIT);
        SpanData handler = handlerSpans(id, 1).get(0);
        assertThat(handler.getParentSpanContext().isValid()).isFalse();
        assertThat(handler.getTraceId()).isNotEqualTo(enqueue[0].getTraceId());
        assertThat(handler.getLinks()).singleElement()
                .satisfies(l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(enqueue[0].getSpanId()));
    }
}
