package dev.skipjack;

/** Base of every exception Skipjack throws on purpose. */
public class SkipjackException extends RuntimeException {
    public SkipjackException(String message) {
        super(message);
    }

    public SkipjackException(String message, Throwable cause) {
        super(message, cause);
    }
}
