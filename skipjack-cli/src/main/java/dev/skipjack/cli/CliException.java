package dev.skipjack.cli;

/** A command cannot go on for a reason the user can fix; reported as one line, without a stack trace. */
public final class CliException extends RuntimeException {
    public CliException(String message) {
        super(message);
    }
}
