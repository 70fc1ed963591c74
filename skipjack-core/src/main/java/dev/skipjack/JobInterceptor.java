package dev.skipjack;

import java.util.Map;

/**
 * Carries context from the code that enqueues a job to the run of its handler, for tracing
 * ({@code skipjack-opentelemetry}'s {@code SkipjackTracing} is one): at enqueue it adds entries to
 * the job's <em>context</em>, a small map of text stored with the job, and around each run of the
 * handler it is given that map back, on the job's own thread, to wrap the run (open a span, put
 * something in a thread local). Register one or more with
 * {@link Skipjack.Builder#interceptor(JobInterceptor)}; both methods have defaults that do
 * nothing, and a client without interceptors stores, reads and calls nothing for them.
 *
 * <p><b>Enqueue.</b> {@link #onEnqueue} is called once per enqueue call (one job, a bulk
 * {@code enqueueAll}, a workflow; in the client's own transaction or in the caller's), on the
 * calling thread, before the insert; the map it fills is stored with every job the call inserts
 * (not with duplicates of unique jobs, which insert nothing). Jobs enqueued by cron schedules have
 * no calling thread and get an empty context. The context is stored in the jobs' own
 * {@code trace_context} column, never in their {@link EnqueueOptions#withMetadata metadata}, which
 * stays the user's alone. Entries whose JSON form is over {@value #MAX_CONTEXT_CHARS} characters
 * in all are not stored (logged once as a warning): context is a few headers, not a payload.
 *
 * <p><b>Run.</b> {@link #aroundHandler} is called on the job's thread for every attempt, in lease,
 * transactional and two-phase mode (there around {@code prepare}: {@code callExternal} runs after
 * the job's transaction is prepared, outside it), with the SLF4J MDC already naming the job; it must call
 * {@link Handler#run()} once and return (or throw) what it gives. Interceptors nest in the order
 * added: the first added is outermost.
 *
 * <p><b>Failures.</b> An interceptor must not change what happens to a job. An exception from
 * {@code onEnqueue} is logged and the enqueue goes on without that interceptor's entries. An
 * exception from {@code aroundHandler} never stops a worker loop or loses a job: thrown before it
 * called the handler, the handler runs without that interceptor; thrown after, the handler's own
 * outcome or exception stands. A {@link Handler} run a second time does not run the handler again:
 * it gives the first run's result. Failures are logged as {@link SkipjackListener}'s are: the first
 * per interceptor as a warning, later ones at debug level.
 */
public interface JobInterceptor {

    /** Most characters a job's stored context may have, as a JSON object of its entries. */
    int MAX_CONTEXT_CHARS = 4_096;

    /**
     * Adds entries to the context of the jobs that this enqueue call inserts; {@code context} is
     * shared with the interceptors added before this one. Called on the enqueuing thread.
     */
    default void onEnqueue(Map<String, String> context) {
    }

    /**
     * Runs the handler of {@code job} through {@code handler}; {@code context} is what
     * {@link #onEnqueue} stored for it (empty for a job enqueued without interceptors, by a cron
     * schedule, or with plain SQL). Returns the outcome the handler returned, or throws what it
     * threw: the default does just that.
     */
    default Outcome aroundHandler(Job<?> job, Map<String, String> context, Handler handler) throws Exception {
        return handler.run();
    }

    /** The handler's run, as {@link #aroundHandler} is given it. */
    @FunctionalInterface
    interface Handler {
        /** Runs the handler (at most once) and returns its outcome, or throws what it threw. */
        Outcome run() throws Exception;
    }
}
