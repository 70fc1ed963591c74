package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.LogCapture;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link JobInterceptor} carries context from the thread that enqueues a job to the thread that
 * runs its handler, on every enqueue path and in every execution mode; it is stored in its own
 * column, so the user's metadata is never touched; and whatever an interceptor throws, the enqueue
 * goes through and the job runs exactly once with its own outcome.
 */
class JobInterceptorTest extends EveryBackendTest {

    record Args(int n) {
    }

    static final JobKind<Args> WORK = JobKind.of("work", Args.class);
    static final JobKind<Args> TX = JobKind.of("tx-work", Args.class);

    /** Stands in for the current span: what the enqueuing thread is doing. */
    static final ThreadLocal<String> REQUEST = new ThreadLocal<>();

    /** Stores REQUEST at enqueue; puts it back on the job's thread while the handler runs. */
    static final class RequestInterceptor implements JobInterceptor {
        @Override
        public void onEnqueue(Map<String, String> context) {
            if (REQUEST.get() != null) {
                context.put("request", REQUEST.get());
            }
        }

        @Override
        public Outcome aroundHandler(Job<?> job, Map<String, String> context, Handler handler) throws Exception {
            REQUEST.set(context.get("request"));
            try {
                return handler.run();
            } finally {
                REQUEST.remove();
            }
        }
    }

    /** What each job's handler saw as REQUEST (absent: null), by job id. */
    private final Map<Long, String> seen = new ConcurrentHashMap<>();
    private final AtomicInteger runs = new AtomicInteger();

    private Skipjack.Builder recording(Skipjack.Builder b) {
        return b.queue("default", 2)
                .handler(WORK, job -> {
                    runs.incrementAndGet();
                    seen.put(job.id(), String.valueOf(REQUEST.get()));
                    return Outcome.complete();
                })
                .transactionalHandler(TX, (job, c) -> {
                    runs.incrementAndGet();
                    seen.put(job.id(), String.valueOf(REQUEST.get()));
                    return Outcome.complete();
                });
    }

    private static <T> T as(String request, java.util.function.Supplier<T> enqueue) {
        REQUEST.set(request);
        try {
            return enqueue.get();
        } finally {
            REQUEST.remove();
        }
    }

    private void awaitCompleted(Skipjack s, List<Long> ids) {
        for (long id : ids) {
            awaitState(s, id, JobState.COMPLETED, Duration.ofSeconds(20));
        }
    }

    @Test
    void theEnqueuersContextReachesTheHandlerOnEveryEnqueuePathAndInBothModes() throws Exception {
        Skipjack s = client(recording(builder()).interceptor(new RequestInterceptor()));
        long single = as("single", () -> s.enqueue(WORK, new Args(1)));
        long transactional = as("tx-mode", () -> s.enqueue(TX, new Args(2)));
        List<Long> bulk = as("bulk", () -> s.enqueueAll(List.of(JobRequest.of(WORK, new Args(3)),
                JobRequest.of(WORK, new Args(4), EnqueueOptions.defaults().withDelay(Duration.ofMillis(1))))));
        long inCaller;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            inCaller = as("caller-tx", () -> s.enqueue(c, WORK, new Args(5)));
            c.commit();
        }
        EnqueuedWorkflow wf = as("workflow", () -> s.enqueueWorkflow(Workflow.named("two")
                .add("a", JobRequest.of(WORK, new Args(6)))
                .add("b", JobRequest.of(WORK, new Args(7)), Workflow.dependsOn("a"))));
        long none = s.enqueue(WORK, new Args(8));
        s.start();
        awaitCompleted(s, List.of(single, transactional, inCaller, none));
        awaitCompleted(s, bulk);
        awaitCompleted(s, List.copyOf(wf.jobIds().values()));

        assertThat(seen.get(single)).isEqualTo("single");
        assertThat(seen.get(transactional)).isEqualTo("tx-mode");
        assertThat(bulk).allSatisfy(id -> assertThat(seen.get(id)).isEqualTo("bulk"));
        assertThat(seen.get(inCaller)).isEqualTo("caller-tx");
        assertThat(wf.jobIds().values()).allSatisfy(id -> assertThat(seen.get(id)).isEqualTo("workflow"));
        assertThat(seen.get(none)).as("enqueued with nothing to carry: an empty context").isEqualTo("null");
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE trace_context IS NULL"))
                .as("nothing stored for the job without context").isEqualTo(1);
    }

    @Test
    void aJobRunOnTheCallersThreadByRunJobGetsItsContextToo() {
        Skipjack s = client(recording(builder()).interceptor(new RequestInterceptor()));
        long leased = as("inline", () -> s.enqueue(WORK, new Args(1)));
        long transactional = as("inline-tx", () -> s.enqueue(TX, new Args(2)));
        assertThat(s.runJob(leased).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        assertThat(s.runJob(transactional).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        assertThat(seen).containsEntry(leased, "inline").containsEntry(transactional, "inline-tx");
        assertThat(REQUEST.get()).as("nothing left on the caller's thread").isNull();
    }

    @Test
    void theContextIsStoredBesideTheUsersMetadataNeverInIt() {
        Skipjack s = client(recording(builder()).interceptor(new RequestInterceptor()));
        // Keys a tracing module might use are the user's to use too.
        Map<String, Object> meta = Map.of("traceparent", "the user's own", "request", 42);
        long id = as("r-1", () -> s.enqueue(WORK, new Args(1), EnqueueOptions.defaults().withMetadata(meta)));
        s.start();
        awaitState(s, id, JobState.COMPLETED, Duration.ofSeconds(20));
        String stored = s.find(id).orElseThrow().metadataJson().replace(" ", "");
        assertThat(stored).contains("\"traceparent\":\"theuser'sown\"").contains("\"request\":42");
        assertThat(seen.get(id)).isEqualTo("r-1");
    }

    @Test
    void aClientWithoutInterceptorsStoresNothingAndRunsJobsStoredWithContext() {
        Skipjack producer = client(builder().interceptor(new RequestInterceptor()));
        long traced = as("from-elsewhere", () -> producer.enqueue(WORK, new Args(1)));
        Skipjack plain = client(recording(builder()));
        long untraced = as("ignored", () -> plain.enqueue(WORK, new Args(2)));
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE trace_context IS NULL")).isEqualTo(1);
        plain.start();
        awaitCompleted(plain, List.of(traced, untraced));
        assertThat(seen).containsEntry(traced, "null").containsEntry(untraced, "null");
    }

    @Test
    void anInterceptorThrowingAtEnqueueFailsNothingAndTheOthersContextIsKept() {
        JobInterceptor broken = new JobInterceptor() {
            @Override
            public void onEnqueue(Map<String, String> context) {
                context.put("half", "written");
                throw new IllegalStateException("tracing is down");
            }
        };
        Map<Long, Map<String, String>> contexts = new ConcurrentHashMap<>();
        JobInterceptor recorder = new JobInterceptor() {
            @Override
            public Outcome aroundHandler(Job<?> job, Map<String, String> context, Handler handler) throws Exception {
                contexts.put(job.id(), new HashMap<>(context));
                return handler.run();
            }
        };
        Skipjack s = client(recording(builder()).interceptor(new RequestInterceptor()).interceptor(broken)
                .interceptor(recorder));
        long id = as("kept", () -> s.enqueue(WORK, new Args(1)));
        s.start();
        awaitState(s, id, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(contexts.get(id)).as("the broken interceptor's half-written entry is dropped")
                .isEqualTo(Map.of("request", "kept"));
        assertThat(seen.get(id)).isEqualTo("kept");
    }

    @Test
    void anInterceptorThrowingAroundTheHandlerNeitherLosesNorRepeatsTheJobNorChangesItsOutcome() {
        JobInterceptor throwsBefore = new JobInterceptor() {
            @Override
            public Outcome aroundHandler(Job<?> job, Map<String, String> context, Handler handler) {
                throw new IllegalStateException("before the handler");
            }
        };
        JobInterceptor runsTwiceThenThrows = new JobInterceptor() {
            @Override
            public Outcome aroundHandler(Job<?> job, Map<String, String> context, Handler handler) throws Exception {
                handler.run();
                handler.run();
                throw new IllegalStateException("after the handler");
            }
        };
        JobKind<Args> failing = JobKind.of("failing", Args.class);
        try (LogCapture log = new LogCapture()) {
            Skipjack s = client(recording(builder()).interceptor(throwsBefore).interceptor(runsTwiceThenThrows)
                    .handler(failing, job -> {
                        runs.incrementAndGet();
                        throw new IllegalArgumentException("the handler's own failure");
                    }));
            s.start();
            long ok = s.enqueue(WORK, new Args(1));
            long tx = s.enqueue(TX, new Args(2));
            long bad = s.enqueue(failing, new Args(3), EnqueueOptions.defaults().withMaxAttempts(1));
            awaitCompleted(s, List.of(ok, tx));
            JobInfo discarded = awaitState(s, bad, JobState.DISCARDED, Duration.ofSeconds(20));
            assertThat(discarded.errors()).singleElement().satisfies(e -> {
                assertThat(e.errorClass()).contains("IllegalArgumentException");
                assertThat(e.message()).isEqualTo("the handler's own failure");
            });
            assertThat(runs.get()).as("each handler ran exactly once").isEqualTo(3);
            // The worker loop is alive: later jobs still run.
            long later = s.enqueue(WORK, new Args(4));
            awaitState(s, later, JobState.COMPLETED, Duration.ofSeconds(20));
            // Each interceptor's failures: one warning each, the rest at debug level (not shown).
            assertThat(log.linesContaining("Skipjack interceptor " + throwsBefore.getClass().getName() + " threw"))
                    .hasSize(1);
            assertThat(log.linesContaining("Skipjack interceptor " + runsTwiceThenThrows.getClass().getName() + " threw"))
                    .hasSize(1);
        }
    }
}
