package dev.skipjack;

/**
 * A handler reported progress or a log line that Skipjack does not store: a null line, a percent
 * outside 0-100, a text longer than its limit ({@link Limits#MAX_LOG_LINE_LENGTH},
 * {@link Limits#MAX_PROGRESS_MESSAGE_LENGTH}), a line break, U+0000 or a lone surrogate. Thrown by
 * {@link Job#progress(int, String)} and {@link Job#log(String)} in the handler's own thread, before
 * anything is recorded; the handler may catch it, and if it does not, the attempt fails like for any
 * other exception. It never reaches a worker loop.
 */
public final class InvalidReportException extends SkipjackException {
    public InvalidReportException(String message) {
        super(message);
    }
}
