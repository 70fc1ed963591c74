package dev.skipjack;

/** The job's kind was never registered with this client (neither a handler nor a declared kind). */
public final class UnknownKindException extends InvalidJobException {
    public UnknownKindException(String message) {
        super(message);
    }
}
