package dev.skipjack;

/**
 * The job's args cannot be serialized, would not deserialize to the type registered for its kind,
 * or lack a field the job's {@link Unique#byArgs(String...) uniqueness} compares.
 */
public final class InvalidArgsException extends InvalidJobException {
    public InvalidArgsException(String message) {
        super(message);
    }

    public InvalidArgsException(String message, Throwable cause) {
        super(message, cause);
    }
}
