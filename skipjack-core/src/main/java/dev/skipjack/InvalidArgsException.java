package dev.skipjack;

/** The job's args cannot be serialized, or would not deserialize to the type registered for its kind. */
public final class InvalidArgsException extends InvalidJobException {
    public InvalidArgsException(String message, Throwable cause) {
        super(message, cause);
    }
}
