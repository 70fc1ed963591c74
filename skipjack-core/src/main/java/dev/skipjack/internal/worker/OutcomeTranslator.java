package dev.skipjack.internal.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.RetryPolicy;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.complete.Completion;

import java.time.Duration;

/** Turns what a handler did — an {@link Outcome} or a thrown exception — into the {@link Completion} to record. */
final class OutcomeTranslator {

    /** Stack traces are trimmed to this many characters before they are stored. */
    static final int MAX_STACK_CHARS = 4_000;
    static final int MAX_MESSAGE_CHARS = 2_000;

    private final ObjectMapper mapper;

    OutcomeTranslator(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    Completion fromOutcome(ClaimedJob job, Outcome outcome, KindOptions options, String workerId) {
        if (outcome == null || outcome.type() == Outcome.Type.COMPLETE) {
            return Completion.completed(job.id(), job.attempt());
        }
        switch (outcome.type()) {
            case RETRY: {
                Duration delay = outcome.delay() != null ? outcome.delay() : policyDelay(options.retryPolicy(), job.attempt());
                return failed(job, delay, error(job, "Retry", outcome.reason(), null, workerId));
            }
            case SNOOZE: {
                long delay = outcome.delay().toMillis();
                return new Completion(job.id(), job.attempt(), delay > 0 ? "scheduled" : "available", delay, 1, null);
            }
            case DISCARD:
                return new Completion(job.id(), job.attempt(), "discarded", null, 0,
                        error(job, "Discarded", outcome.reason(), null, workerId));
            case CANCEL:
                return new Completion(job.id(), job.attempt(), "cancelled", null, 0,
                        error(job, "Cancelled", outcome.reason(), null, workerId));
            default:
                throw new IllegalStateException("unhandled outcome " + outcome.type());
        }
    }

    /** A failed attempt: retried after the policy's delay, or discarded when it was the last. */
    Completion fromFailure(ClaimedJob job, String errorClass, String message, Throwable cause, KindOptions options,
                           String workerId) {
        return failed(job, policyDelay(options.retryPolicy(), job.attempt()), error(job, errorClass, message, cause, workerId));
    }

    /** A job that can never run as stored (e.g. args that do not deserialize): discarded at once. */
    Completion discard(ClaimedJob job, String errorClass, String message, Throwable cause, String workerId) {
        return new Completion(job.id(), job.attempt(), "discarded", null, 0, error(job, errorClass, message, cause, workerId));
    }

    private static Completion failed(ClaimedJob job, Duration delay, String error) {
        if (job.attempt() >= job.maxAttempts()) {
            return new Completion(job.id(), job.attempt(), "discarded", null, 0, error);
        }
        long millis = delay.toMillis();
        return new Completion(job.id(), job.attempt(), millis > 0 ? "retryable" : "available", millis, 0, error);
    }

    private static Duration policyDelay(RetryPolicy policy, int attempt) {
        try {
            Duration d = policy.delayAfter(attempt);
            return d == null || d.isNegative() ? Duration.ZERO : d;
        } catch (RuntimeException e) {
            // A broken policy must not lose the job: retry soon and let the error speak for itself.
            return Duration.ofSeconds(1);
        }
    }

    private String error(ClaimedJob job, String errorClass, String message, Throwable cause, String workerId) {
        ObjectNode node = mapper.createObjectNode();
        node.put("attempt", job.attempt());
        node.put("class", errorClass);
        node.put("message", trim(message, MAX_MESSAGE_CHARS));
        node.put("worker", workerId);
        if (cause != null) {
            node.put("stack", trim(stackOf(cause), MAX_STACK_CHARS));
        }
        return node.toString();
    }

    static String stackOf(Throwable t) {
        java.io.StringWriter out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    private static String trim(String s, int max) {
        if (s == null) {
            return null;
        }
        return s.length() <= max ? s : s.substring(0, max) + "\n... (trimmed)";
    }
}
