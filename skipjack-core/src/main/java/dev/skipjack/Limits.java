package dev.skipjack;

import java.util.regex.Pattern;

/** The ranges Skipjack accepts, checked at every public entry point and by the schema's CHECKs. */
public final class Limits {
    /** Highest priority value; 0 is the most urgent. */
    public static final int MAX_PRIORITY = 100;
    /** Largest {@code maxAttempts} accepted at enqueue. */
    public static final int MAX_ATTEMPTS = 10_000;
    /** Default size limit of a job's serialized args, in bytes. */
    public static final int DEFAULT_MAX_ARGS_BYTES = 256 * 1024;
    /** Queue names: lower-case letters, digits, '_', '-' and '.', starting with a letter or digit, up to 64. */
    public static final Pattern QUEUE_NAME = Pattern.compile("[a-z0-9][a-z0-9_.\\-]{0,63}");
    /** Kind names: letters, digits, '_', '-', '.' and ':', starting with a letter, up to 128. */
    public static final Pattern KIND_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.:\\-]{0,127}");

    private Limits() {
    }

    /** A queue name given at enqueue; {@link InvalidOptionException} when malformed. */
    static String requireQueueName(String queue) {
        if (!isQueueName(queue)) {
            throw new InvalidOptionException(invalidQueueName(queue));
        }
        return queue;
    }

    /** A queue name given in configuration as {@code option}; {@link InvalidConfigurationException} when malformed. */
    static String requireQueueName(String queue, String option) {
        if (!isQueueName(queue)) {
            throw new InvalidConfigurationException(option, invalidQueueName(queue));
        }
        return queue;
    }

    /** A kind name given at enqueue; {@link InvalidOptionException} when malformed. */
    static String requireKindName(String kind) {
        if (!isKindName(kind)) {
            throw new InvalidOptionException(invalidKindName(kind));
        }
        return kind;
    }

    /** A kind name given in configuration ({@link JobKind#of}); {@link InvalidConfigurationException} when malformed. */
    static String requireKindNameInConfiguration(String kind) {
        if (!isKindName(kind)) {
            throw new InvalidConfigurationException("kind", invalidKindName(kind));
        }
        return kind;
    }

    private static boolean isQueueName(String queue) {
        return queue != null && QUEUE_NAME.matcher(queue).matches();
    }

    private static boolean isKindName(String kind) {
        return kind != null && KIND_NAME.matcher(kind).matches();
    }

    private static String invalidQueueName(String queue) {
        return "invalid queue name " + quote(queue) + ": use 1-64 of a-z, 0-9, '_', '-', '.', starting with a letter or digit";
    }

    private static String invalidKindName(String kind) {
        return "invalid kind name " + quote(kind) + ": use 1-128 of letters, digits, '_', '-', '.', ':', starting with a letter";
    }

    static String quote(String value) {
        if (value == null) {
            return "null";
        }
        String shown = value.length() > 80 ? value.substring(0, 80) + "..." : value;
        return "'" + shown + "'";
    }
}
