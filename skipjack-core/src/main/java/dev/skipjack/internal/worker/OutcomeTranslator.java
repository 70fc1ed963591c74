package dev.skipjack.internal.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.RetryPolicy;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.enqueue.ConcurrencyOrder;

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

    /**
     * A job of a rate-limited key (F-12) that will run again (retry, snooze) waits to be admitted
     * again instead of becoming available or scheduled: its next start must fit the rate too. Its
     * delay still applies (admission takes only due jobs).
     */
    static Completion readmittedIfRateLimited(Completion c) {
        if (c.concurrencyKey() == null || !ConcurrencyOrder.isRate(c.concurrencyKey()) || c.isTerminal()) {
            return c;
        }
        return new Completion(c.id(), c.attempt(), "waiting", c.delayMillis() == null ? 0L : c.delayMillis(),
                c.extraAttempts(), c.errorJson(), c.workflowId(), c.outputJson(), c.concurrencyKey());
    }

    Completion fromOutcome(ClaimedJob job, Outcome outcome, KindOptions options, String workerId) {
        return readmittedIfRateLimited(translate(job, outcome, options, workerId));
    }

    private Completion translate(ClaimedJob job, Outcome outcome, KindOptions options, String workerId) {
        if (outcome == null || outcome.type() == Outcome.Type.COMPLETE) {
            Completion done = Completion.completed(job.id(), job.attempt());
            if (job.workflowId() != null || job.concurrencyKey() != null) {
                // the hot path (no workflow, no key) allocates nothing more
                done = done.inWorkflow(job.workflowId()).withConcurrencyKey(job.concurrencyKey());
            }
            return outcome == null || outcome.output() == null ? done : withOutput(job, done, outcome.output(), workerId);
        }
        switch (outcome.type()) {
            case RETRY: {
                Duration delay = outcome.delay() != null ? outcome.delay() : policyDelay(options.retryPolicy(), job.attempt());
                return failed(job, delay, error(job, "Retry", outcome.reason(), null, workerId));
            }
            case SNOOZE: {
                long delay = clampMillis(outcome.delay());
                return new Completion(job.id(), job.attempt(), delay > 0 ? "scheduled" : "available", delay, 1, null)
                        .inWorkflow(job.workflowId()).withConcurrencyKey(job.concurrencyKey());
            }
            case DISCARD:
                return new Completion(job.id(), job.attempt(), "discarded", null, 0,
                        error(job, "Discarded", outcome.reason(), null, workerId))
                        .inWorkflow(job.workflowId()).withConcurrencyKey(job.concurrencyKey());
            case CANCEL:
                return new Completion(job.id(), job.attempt(), "cancelled", null, 0,
                        error(job, "Cancelled", outcome.reason(), null, workerId))
                        .inWorkflow(job.workflowId()).withConcurrencyKey(job.concurrencyKey());
            default:
                throw new IllegalStateException("unhandled outcome " + outcome.type());
        }
    }

    /**
     * The completion with the handler's output as JSON; an output that does not serialize or is
     * too large discards the job instead (running it again would give the same output).
     */
    private Completion withOutput(ClaimedJob job, Completion done, Object output, String workerId) {
        String json;
        try {
            json = mapper.writeValueAsString(output);
        } catch (Exception e) {
            return discard(job, "InvalidOutput", "the handler's output does not serialize to JSON: " + messageOf(e), e,
                    workerId);
        }
        int bytes = (long) json.length() * 3 <= Outcome.MAX_OUTPUT_BYTES ? json.length()
                : json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > Outcome.MAX_OUTPUT_BYTES) {
            return discard(job, "InvalidOutput", "the handler's output is " + bytes + " bytes of JSON, over the limit of "
                    + Outcome.MAX_OUTPUT_BYTES + ": record a reference to the data, not the data", null, workerId);
        }
        return "null".equals(json) ? done : done.withOutput(json);
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
        node.put("message", "the outcome's error" + (original.outputJson() == null ? "" : " or output")
                + " could not be stored: " + clean(trim(problem, MAX_MESSAGE_CHARS)));
        Long delay = original.delayMillis() == null ? null : Math.min(original.delayMillis(), Duration.ofDays(1).toMillis());
        // The output is dropped: it may be what the database refused.
        return new Completion(original.id(), original.attempt(), original.state(), delay, original.extraAttempts(),
                node.toString()).inWorkflow(original.workflowId()).withConcurrencyKey(original.concurrencyKey());
    }

    /**
     * A job an operator cancelled or discarded while it ran here ({@code state}), whose handler
     * did not complete it ({@code original}: the failure, retry or snooze it ended with instead):
     * it ends as the operator asked, the handler's own end told in the recorded error.
     */
    Completion stopped(Completion original, String state, String workerId) {
        return new Completion(original.id(), original.attempt(), state, null, 0,
                error(original.attempt(), stopClass(state), stopMessage(state, "; its handler then " + endOf(original)),
                        null, workerId))
                .inWorkflow(original.workflowId()).withConcurrencyKey(original.concurrencyKey());
    }

    /** As {@link #stopped(Completion, String, String)}, for a job whose handler never ran ({@code when}). */
    Completion stopped(ClaimedJob job, String state, String when, String workerId) {
        return new Completion(job.id(), job.attempt(), state, null, 0,
                error(job, stopClass(state), stopMessage(state, " " + when), null, workerId))
                .inWorkflow(job.workflowId()).withConcurrencyKey(job.concurrencyKey());
    }

    private static String stopClass(String state) {
        return "cancelled".equals(state) ? "Cancelled" : "Discarded";
    }

    private static String stopMessage(String state, String detail) {
        return ("cancelled".equals(state) ? "cancelled" : "discarded") + " by an operator while running" + detail;
    }

    /** How a handler's run ended, from the completion it gave: its failure, or its request to run again. */
    private String endOf(Completion original) {
        if (original.errorJson() == null) {
            return "asked to run again (" + original.state() + ")";
        }
        try {
            com.fasterxml.jackson.databind.JsonNode error = mapper.readTree(original.errorJson());
            return "ended with " + error.path("class").asText("?") + ": " + error.path("message").asText("");
        } catch (Exception e) {
            return "failed";
        }
    }

    /** A job that can never run as stored (e.g. args that do not deserialize): discarded at once. */
    Completion discard(ClaimedJob job, String errorClass, String message, Throwable cause, String workerId) {
        return new Completion(job.id(), job.attempt(), "discarded", null, 0, error(job, errorClass, message, cause, workerId))
                .inWorkflow(job.workflowId()).withConcurrencyKey(job.concurrencyKey());
    }

    private static Completion failed(ClaimedJob job, Duration delay, String error) {
        return readmittedIfRateLimited(failedAttempt(job, delay, error));
    }

    private static Completion failedAttempt(ClaimedJob job, Duration delay, String error) {
        if (job.attempt() >= job.maxAttempts()) {
            return new Completion(job.id(), job.attempt(), "discarded", null, 0, error)
                    .inWorkflow(job.workflowId()).withConcurrencyKey(job.concurrencyKey());
        }
        long millis = clampMillis(delay);
        return new Completion(job.id(), job.attempt(), millis > 0 ? "retryable" : "available", millis, 0, error)
                .inWorkflow(job.workflowId()).withConcurrencyKey(job.concurrencyKey());
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
        return error(job.attempt(), errorClass, message, cause, workerId);
    }

    private String error(int attempt, String errorClass, String message, Throwable cause, String workerId) {
        ObjectNode node = mapper.createObjectNode();
        node.put("attempt", attempt);
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
