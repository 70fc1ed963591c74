package dev.skipjack;

/**
 * A schema name or table prefix is not a plain SQL identifier; Skipjack never puts such text into
 * SQL. A configuration error: {@link #option()} is {@code schema} or {@code tablePrefix}.
 */
public final class InvalidIdentifierException extends InvalidConfigurationException {
    public InvalidIdentifierException(String option, String message) {
        super(option, message);
    }
}
