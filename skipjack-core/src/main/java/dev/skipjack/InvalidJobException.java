package dev.skipjack;

/**
 * A job was refused at enqueue because of what it says: nothing was inserted. The subclasses name
 * the problem; the message says which value and why.
 */
public class InvalidJobException extends SkipjackException {
    public InvalidJobException(String message) {
        super(message);
    }

    public InvalidJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
