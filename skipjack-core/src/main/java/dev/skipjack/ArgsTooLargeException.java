package dev.skipjack;

/** The job's serialized args exceed the configured maximum size. */
public final class ArgsTooLargeException extends InvalidJobException {
    public ArgsTooLargeException(String message) {
        super(message);
    }
}
