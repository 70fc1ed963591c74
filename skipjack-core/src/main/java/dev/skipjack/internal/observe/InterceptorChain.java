package dev.skipjack.internal.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.Job;
import dev.skipjack.JobInterceptor;
import dev.skipjack.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The registered {@link JobInterceptor}s: collects their context at enqueue as the JSON text the
 * jobs' trace_context column stores, and nests them around a handler's run. Whatever an
 * interceptor throws is caught here (logged as {@link ListenerFanOut} logs a listener's failure):
 * tracing must never fail an enqueue, stop a worker loop or change a job's outcome. Callers check
 * {@link #active()} first, so a client without interceptors does no work for them.
 */
public final class InterceptorChain {

    private static final Logger log = LoggerFactory.getLogger(InterceptorChain.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, String>> CONTEXT = new TypeReference<>() {
    };

    /** No interceptor: {@link #active()} is false. */
    public static final InterceptorChain NONE = new InterceptorChain(List.of());

    private final JobInterceptor[] interceptors;
    private final PluginFailures failures;
    private final AtomicBoolean warnedTooLarge = new AtomicBoolean();

    private InterceptorChain(List<JobInterceptor> interceptors) {
        this.interceptors = interceptors.toArray(new JobInterceptor[0]);
        this.failures = new PluginFailures(log, "interceptor", this.interceptors);
    }

    /** The chain of these interceptors, the first outermost; {@link #NONE} for none. */
    public static InterceptorChain of(List<JobInterceptor> interceptors) {
        return interceptors.isEmpty() ? NONE : new InterceptorChain(List.copyOf(interceptors));
    }

    public boolean active() {
        return interceptors.length > 0;
    }

    /**
     * The context of the jobs the calling thread is enqueuing, as a JSON object, or null when the
     * interceptors added none (nothing to store) or too much ({@link JobInterceptor#MAX_CONTEXT_CHARS}).
     */
    public String captureContext() {
        Map<String, String> context = new LinkedHashMap<>();
        for (int i = 0; i < interceptors.length; i++) {
            // Each interceptor writes into a copy: one that throws halfway leaves nothing behind.
            Map<String, String> mine = new LinkedHashMap<>(context);
            try {
                interceptors[i].onEnqueue(mine);
                context = mine;
            } catch (Throwable t) {
                failed(i, "onEnqueue", t);
            }
        }
        context.entrySet().removeIf(e -> e.getKey() == null || e.getValue() == null);
        if (context.isEmpty()) {
            return null;
        }
        String json;
        try {
            json = JSON.writeValueAsString(context);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings did not serialize", e);
        }
        if (json.length() > JobInterceptor.MAX_CONTEXT_CHARS) {
            if (warnedTooLarge.compareAndSet(false, true)) {
                log.warn("job context of {} characters is over the {} allowed; not stored (keys {}; further cases"
                        + " are not logged)", json.length(), JobInterceptor.MAX_CONTEXT_CHARS, context.keySet());
            }
            return null;
        }
        return json;
    }

    /** The stored context back as a map: empty for none, or for text that is not a JSON object of strings. */
    public static Map<String, String> parse(String json) {
        if (json == null) {
            return Map.of();
        }
        try {
            Map<String, String> m = JSON.readValue(json, CONTEXT);
            return m == null ? Map.of() : m;
        } catch (Exception e) {
            // Written by hand with plain SQL, perhaps: the job runs all the same, without its context.
            log.debug("job context is not a JSON object of strings; ignored: {}", json, e);
            return Map.of();
        }
    }

    /**
     * Runs {@code handler} inside every interceptor, the first outermost. The handler runs exactly
     * once whatever the interceptors do; its outcome or exception is what this returns or throws.
     */
    public Outcome around(Job<?> job, String contextJson, JobInterceptor.Handler handler) throws Exception {
        Map<String, String> context = Map.copyOf(parse(contextJson));
        return around(0, job, context, new Once(handler));
    }

    private Outcome around(int index, Job<?> job, Map<String, String> context, Once handler) throws Exception {
        if (index == interceptors.length) {
            return handler.run();
        }
        Once inner = new Once(() -> around(index + 1, job, context, handler));
        try {
            interceptors[index].aroundHandler(job, context, inner);
        } catch (Throwable t) {
            if (!inner.ran || inner.failure != t) {
                // The interceptor's own failure, not the handler's passing through.
                failed(index, "aroundHandler", t);
            }
        }
        // Whatever the interceptor returned or threw, the job's result is the handler's: run now if
        // the interceptor never called it.
        return inner.run();
    }

    private void failed(int index, String method, Throwable t) {
        failures.failed(index, method, t);
    }

    /** A handler run at most once; later calls give the first call's outcome or exception. */
    private static final class Once implements JobInterceptor.Handler {
        private final JobInterceptor.Handler delegate;
        private boolean ran;
        private Outcome outcome;
        private Throwable failure;

        Once(JobInterceptor.Handler delegate) {
            this.delegate = delegate;
        }

        @Override
        public Outcome run() throws Exception {
            if (!ran) {
                ran = true;
                try {
                    outcome = delegate.run();
                } catch (Throwable t) {
                    failure = t;
                }
            }
            if (failure instanceof Exception e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
            return outcome;
        }
    }
}
