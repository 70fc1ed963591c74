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

    /** Tags: letters, digits and '_', '-', '.', ':', '/', '=', starting with a letter or digit, up to 64. */
    public static final Pattern TAG = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:/=\\-]{0,63}");
    /** Most tags one job carries. */
    public static final int MAX_TAGS = 16;
    /** Largest metadata of one job, in bytes of JSON. */
    public static final int MAX_METADATA_BYTES = 8 * 1024;

    /** Longest concurrency or sequence key given at enqueue, in chars (F-12, F-13). */
    public static final int MAX_CONCURRENCY_KEY_LENGTH = 200;
    /** Longest partition of a kind's concurrency limit, in chars ({@link JobKind#limitedTo(int, java.util.function.Function)}). */
    public static final int MAX_PARTITION_LENGTH = 120;
    /**
     * Log lines kept per attempt of a job ({@link Job#log}): the latest ones; as more come, the
     * oldest of that attempt are dropped.
     */
    public static final int MAX_LOG_LINES = 100;
    /** Attempts of one job whose log lines are kept: the latest ones, so a job keeps at most 300 lines. */
    public static final int MAX_LOG_ATTEMPTS = 3;
    /** Longest log line ({@link Job#log}), in chars. */
    public static final int MAX_LOG_LINE_LENGTH = 1_000;
    /** Longest progress message ({@link Job#progress(int, String)}), in chars. */
    public static final int MAX_PROGRESS_MESSAGE_LENGTH = 200;

    private Limits() {
    }

    /**
     * A concurrency or sequence key ({@code what}) given at enqueue; {@link InvalidOptionException}
     * when null, empty, too long, or holding text a backend would refuse or alter.
     */
    static String requireConcurrencyKey(String key, String what) {
        String problem = keyProblem(key, MAX_CONCURRENCY_KEY_LENGTH);
        if (problem != null) {
            throw new InvalidOptionException("invalid " + what + " " + quote(key) + ": " + problem);
        }
        return key;
    }

    /**
     * Why a key may not end with a space: MySQL's and MariaDB's collations pad with spaces when they
     * compare, so "a" and "a " would be one key there and two on PostgreSQL and SQLite.
     */
    static final String TRAILING_SPACE = "it ends with a space, which MySQL and MariaDB ignore when they compare keys"
            + " ('a' and 'a ' would be one key there, two elsewhere); trim it";

    /** What is wrong with {@code key} as part of a stored concurrency key, or null when nothing. */
    static String keyProblem(String key, int maxLength) {
        if (key == null || key.isEmpty()) {
            return "it must not be null or empty";
        }
        if (key.length() > maxLength) {
            return "it is " + key.length() + " chars long, over the limit of " + maxLength;
        }
        if (key.endsWith(" ")) {
            return TRAILING_SPACE;
        }
        for (int i = 0; i < key.length(); i++) {
            char ch = key.charAt(i);
            if (Character.isISOControl(ch)) {
                return "it holds control character U+" + String.format("%04X", (int) ch) + " at index " + i;
            }
            if (Character.isHighSurrogate(ch) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                return "it holds a lone UTF-16 surrogate at index " + i;
            }
        }
        return null;
    }

    /** A log line a handler reports; {@link InvalidReportException} when it cannot be stored as given. */
    static String requireLogLine(String line) {
        if (line == null) {
            throw new InvalidReportException("a log line must not be null");
        }
        requireReportText(line, "log line", MAX_LOG_LINE_LENGTH);
        return line;
    }

    /** A progress a handler reports; {@link InvalidReportException} when out of range or not storable. */
    static void requireProgress(int percent, String message) {
        if (percent < 0 || percent > 100) {
            throw new InvalidReportException("progress must be a percentage from 0 to 100, not " + percent);
        }
        if (message != null) {
            requireReportText(message, "progress message", MAX_PROGRESS_MESSAGE_LENGTH);
        }
    }

    /**
     * One line of text, as every backend stores it: at most {@code max} chars, no line break, no
     * U+0000 (PostgreSQL refuses it in text) and no lone surrogate (the drivers replace it).
     */
    private static void requireReportText(String text, String what, int max) {
        if (text.length() > max) {
            throw new InvalidReportException(what + " too long: " + text.length() + " chars, at most " + max
                    + " (" + quote(text) + ")");
        }
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == 0) {
                throw new InvalidReportException(what + " contains U+0000 at char " + i + ", which no backend stores");
            }
            if (ch == '\n' || ch == '\r') {
                throw new InvalidReportException(what + " contains a line break at char " + i
                        + ": report one line per call");
            }
            if (Character.isHighSurrogate(ch) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                throw new InvalidReportException(what + " contains a lone UTF-16 surrogate at char " + i
                        + ", which the drivers do not store as given");
            }
        }
    }

    /** A tag given at enqueue or in a query; {@link InvalidOptionException} when malformed. */
    static String requireTag(String tag) {
        if (tag == null || !TAG.matcher(tag).matches()) {
            throw new InvalidOptionException("invalid tag " + quote(tag) + ": use 1-64 of letters, digits and"
                    + " '_', '-', '.', ':', '/', '=', starting with a letter or digit");
        }
        return tag;
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
