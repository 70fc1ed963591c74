package dev.skipjack;

/** A schema name or table prefix is not a plain SQL identifier; Skipjack never puts such text into SQL. */
public final class InvalidIdentifierException extends SkipjackException {
    public InvalidIdentifierException(String message) {
        super(message);
    }
}
