package dev.skipjack.internal.complete;

/**
 * The recorded end of one execution {@code (id, attempt)}: its next state, an optional delay before
 * it runs again (database clock), attempts given back, and an optional error entry (JSON object text).
 */
public record Completion(long id, int attempt, String state, Long delayMillis, int extraAttempts, String errorJson) {

    public static Completion completed(long id, int attempt) {
        return new Completion(id, attempt, "completed", null, 0, null);
    }

    public boolean isPlainCompletion() {
        return "completed".equals(state) && errorJson == null && delayMillis == null && extraAttempts == 0;
    }
}
