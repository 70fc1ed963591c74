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
    /** Longest delay recorded: a policy or handler asking for more gets this (PostgreSQL intervals have limits). */
    static final Duration MAX_DELAY = Duration.ofDays(365L * 100);

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
                long delay = clampMillis(outcome.delay());
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

    /** A failure thrown by the handler: the exception's class, message and stack. */
    Completion fromThrowable(ClaimedJob job, Throwable t, KindOptions options, String workerId) {
        return fromFailure(job, t.getClass().getName(), messageOf(t), t, options, workerId);
    }

    /**
     * Returns an execution this worker will not finish to the queue at once, giving its attempt
     * back through max_attempts so the attempt number still grows.
     */
    Completion handBack(long id, int attempt, String workerId, String reason) {
        ObjectNode node = mapper.createObjectNode();
        node.put("attempt", attempt);
        node.put("class", "HandedBack");
        node.put("message", reason);
        node.put("worker", workerId);
        return new Completion(id, attempt, "available", null, 1, node.toString());
    }

    /** The same completion with its error replaced by a minimal one, for an error the database refused to store. */
    Completion withUnstorableError(Completion original, String problem) {
        ObjectNode node = mapper.createObjectNode();
        node.put("attempt", original.attempt());
        node.put("class", "UnstorableOutcome");
        node.put("message", "the outcome's error could not be stored: " + clean(trim(problem, MAX_MESSAGE_CHARS)));
        Long delay = original.delayMillis() == null ? null : Math.min(original.delayMillis(), Duration.ofDays(1).toMillis());
        return new Completion(original.id(), original.attempt(), original.state(), delay, original.extraAttempts(),
                node.toString());
    }

    /** A job that can never run as stored (e.g. args that do not deserialize): discarded at once. */
    Completion discard(ClaimedJob job, String errorClass, String message, Throwable cause, String workerId) {
        return new Completion(job.id(), job.attempt(), "discarded", null, 0, error(job, errorClass, message, cause, workerId));
    }

    private static Completion failed(ClaimedJob job, Duration delay, String error) {
        if (job.attempt() >= job.maxAttempts()) {
            return new Completion(job.id(), job.attempt(), "discarded", null, 0, error);
        }
        long millis = clampMillis(delay);
        return new Completion(job.id(), job.attempt(), millis > 0 ? "retryable" : "available", millis, 0, error);
    }

    static long clampMillis(Duration delay) {
        if (delay == null || delay.isNegative()) {
            return 0;
        }
        return delay.compareTo(MAX_DELAY) > 0 ? MAX_DELAY.toMillis() : delay.toMillis();
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
        node.put("class", clean(errorClass));
        node.put("message", clean(trim(message, MAX_MESSAGE_CHARS)));
        node.put("worker", workerId);
        if (cause != null) {
            node.put("stack", clean(trim(stackOf(cause), MAX_STACK_CHARS)));
        }
        return node.toString();
    }

    /** The exception's message; a message or toString that throws must not stop the failure being recorded. */
    static String messageOf(Throwable t) {
        try {
            return String.valueOf(t.getMessage());
        } catch (Throwable broken) {
            return "(the exception's getMessage() threw " + broken.getClass().getName() + ")";
        }
    }

    static String stackOf(Throwable t) {
        try {
            java.io.StringWriter out = new java.io.StringWriter();
            t.printStackTrace(new java.io.PrintWriter(out));
            return out.toString();
        } catch (Throwable broken) {
            return t.getClass().getName() + " (its stack trace could not be printed: " + broken.getClass().getName() + ")";
        }
    }

    private static String trim(String s, int max) {
        if (s == null) {
            return null;
        }
        return s.length() <= max ? s : s.substring(0, max) + "\n... (trimmed)";
    }

    /** PostgreSQL's jsonb cannot hold U+0000, so it is shown instead of stored. */
    private static String clean(String s) {
        return s == null || s.indexOf('\0') < 0 ? s : s.replace("\0", "\\u0000");
    }
}
