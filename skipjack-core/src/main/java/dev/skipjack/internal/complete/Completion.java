package dev.skipjack.internal.complete;

import java.util.Set;

/**
 * The recorded end of one execution {@code (id, attempt)}: its next state, an optional delay before
 * it runs again (database clock), attempts given back, and an optional error entry (JSON object
 * text). A job of a workflow carries its {@code workflowId}, so that its end also advances the
 * workflow (null outside workflows); {@code outputJson} is what a completing handler recorded
 * (null: nothing). A job with a concurrency or sequence key carries it in {@code concurrencyKey}
 * (F-12, F-13), so that its end admits the key's next job (null: none).
 */
public record Completion(long id, int attempt, String state, Long delayMillis, int extraAttempts, String errorJson,
                         Long workflowId, String outputJson, String concurrencyKey) {

    private static final Set<String> TERMINAL = Set.of("completed", "discarded", "cancelled");

    /** A completion outside any workflow, without output. */
    public Completion(long id, int attempt, String state, Long delayMillis, int extraAttempts, String errorJson) {
        this(id, attempt, state, delayMillis, extraAttempts, errorJson, null, null, null);
    }

    public static Completion completed(long id, int attempt) {
        return new Completion(id, attempt, "completed", null, 0, null);
    }

    /** The same completion for a job of workflow {@code workflowId} (null: none). */
    public Completion inWorkflow(Long workflowId) {
        return new Completion(id, attempt, state, delayMillis, extraAttempts, errorJson, workflowId, outputJson,
                concurrencyKey);
    }

    /** The same completion recording {@code outputJson}. */
    public Completion withOutput(String outputJson) {
        return new Completion(id, attempt, state, delayMillis, extraAttempts, errorJson, workflowId, outputJson,
                concurrencyKey);
    }

    /** The same completion for a job of concurrency key {@code key} (null: none); no copy when null. */
    public Completion withConcurrencyKey(String key) {
        if (key == null && concurrencyKey == null) {
            return this;
        }
        return new Completion(id, attempt, state, delayMillis, extraAttempts, errorJson, workflowId, outputJson, key);
    }

    /**
     * Whether writing it ends a job that held a slot of a concurrency key, or sends a rate-limited
     * job back to wait (a failed attempt), so the key's next may be admitted.
     */
    public boolean freesConcurrencySlot() {
        return concurrencyKey != null && (isTerminal() || "waiting".equals(state));
    }

    /** complete_jobs.sql's case: completed, nothing else to record. */
    public boolean isPlainCompletion() {
        return "completed".equals(state) && errorJson == null && delayMillis == null && extraAttempts == 0
                && outputJson == null;
    }

    /** Completed, with or without an output: the handler's work is kept. */
    public boolean isCompleted() {
        return "completed".equals(state);
    }

    /** Characters of text it carries into a statement: its output's and its error's. */
    public int textLength() {
        return (outputJson == null ? 0 : outputJson.length()) + (errorJson == null ? 0 : errorJson.length());
    }

    /** Whether this completion ends the job (completed, discarded or cancelled). */
    public boolean isTerminal() {
        return TERMINAL.contains(state);
    }

    /** Whether writing it must also advance the job's workflow: a workflow job's terminal state. */
    public boolean advancesWorkflow() {
        return workflowId != null && isTerminal();
    }
}
