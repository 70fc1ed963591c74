package dev.skipjack;

/** A queue name, priority, attempt count, delay or other option is out of range or malformed. */
public final class InvalidOptionException extends InvalidJobException {
    public InvalidOptionException(String message) {
        super(message);
    }
}
