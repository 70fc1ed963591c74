package dev.skipjack;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where and when a job runs. Immutable: each {@code with} method returns a new instance and leaves
 * this one as it was, so a shared instance (a constant, {@link #defaults()}) is safe to build on:
 * {@code EnqueueOptions.defaults().withQueue("mail").withPriority(1).withDelay(Duration.ofMinutes(5))}.
 * Defaults: queue {@value #DEFAULT_QUEUE}, priority 0, due now, the kind's max attempts.
 *
 * <p>The {@code with} methods refuse bad values with {@link InvalidOptionException}, the
 * {@link InvalidJobException} of input refused at enqueue.
 */
public final class EnqueueOptions {

    public static final String DEFAULT_QUEUE = "default";
    /** Used when neither the options nor the kind set max attempts. */
    public static final int DEFAULT_MAX_ATTEMPTS = 25;

    private static final EnqueueOptions DEFAULTS = new EnqueueOptions(DEFAULT_QUEUE, 0, null, null, 0, null, List.of(), null, null);

    private final String queue;
    private final int priority;
    private final Instant runAt;
    private final Duration delay;
    private final int maxAttempts;
    private final Unique unique;
    private final List<String> tags;
    private final Map<String, ?> metadata;
    /** The job's concurrency key set here (F-12, F-13), null unless set. */
    private final KeyedConcurrency concurrency;

    /**
     * A concurrency key given at enqueue: a limit of {@code max} on {@code key}, or (ordered) a
     * sequence key, which is a limit of 1 admitted in enqueue order.
     */
    record KeyedConcurrency(String key, int max, boolean ordered, SequenceOnDiscard onDiscard, Duration period) {
    }

    private EnqueueOptions(String queue, int priority, Instant runAt, Duration delay, int maxAttempts, Unique unique,
                           List<String> tags, Map<String, ?> metadata, KeyedConcurrency concurrency) {
        this.queue = queue;
        this.priority = priority;
        this.runAt = runAt;
        this.delay = delay;
        this.maxAttempts = maxAttempts;
        this.unique = unique;
        this.tags = tags;
        this.metadata = metadata;
        this.concurrency = concurrency;
    }

    /**
     * Whether a job enqueued with these options gets the same row as one enqueued with
     * {@code other}, but for its args: the same queue, priority, due time, max attempts and tags,
     * and nothing whose row depends on the args or is compared only by its own equals (unique,
     * a concurrency key, metadata). Lets a bulk enqueue built with a fresh options object per
     * request ({@code defaults().withQueue("mail")} in the loop) work the row out once.
     */
    boolean sameRowAs(EnqueueOptions other) {
        if (this == other) {
            return true;
        }
        return unique == null && other.unique == null && concurrency == null && other.concurrency == null
                && metadata == null && other.metadata == null && priority == other.priority
                && maxAttempts == other.maxAttempts && queue.equals(other.queue) && Objects.equals(runAt, other.runAt)
                && Objects.equals(delay, other.delay) && tags.equals(other.tags);
    }

    /** Queue {@value #DEFAULT_QUEUE}, priority 0, due now, the kind's max attempts. */
    public static EnqueueOptions defaults() {
        return DEFAULTS;
    }

    /**
     * These options on queue {@code queue}.
     *
     * @throws InvalidOptionException when the name is not 1-64 of a-z, 0-9, '_', '-', '.'
     *                                starting with a letter or digit ({@link Limits#QUEUE_NAME})
     */
    public EnqueueOptions withQueue(String queue) {
        return new EnqueueOptions(Limits.requireQueueName(queue), priority, runAt, delay, maxAttempts, unique, tags, metadata, concurrency);
    }

    /**
     * These options with {@code priority}: 0 (most urgent) to {@link Limits#MAX_PRIORITY}.
     *
     * @throws InvalidOptionException when out of that range
     */
    public EnqueueOptions withPriority(int priority) {
        if (priority < 0 || priority > Limits.MAX_PRIORITY) {
            throw new InvalidOptionException("priority must be between 0 and " + Limits.MAX_PRIORITY + ", got " + priority);
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts, unique, tags, metadata, concurrency);
    }

    /**
     * The earliest and latest {@link #withRunAt runAt} taken: what every backend stores and reads
     * back as given (MySQL's and MariaDB's DATETIME ends with the year 9999, a day's margin kept for
     * a session time zone; dates before the Gregorian calendar read back shifted through JDBC's
     * timestamps). An earlier runAt would only mean "due now", as the epoch does.
     */
    public static final Instant EARLIEST_RUN_AT = Instant.EPOCH;
    public static final Instant LATEST_RUN_AT = Instant.parse("9999-12-30T00:00:00Z");

    /**
     * These options with the job running no earlier than {@code runAt}. Replaces any delay.
     *
     * @throws InvalidOptionException when null, or outside {@link #EARLIEST_RUN_AT} to {@link #LATEST_RUN_AT}
     */
    public EnqueueOptions withRunAt(Instant runAt) {
        if (runAt == null) {
            throw new InvalidOptionException("runAt must not be null");
        }
        if (runAt.isBefore(EARLIEST_RUN_AT) || runAt.isAfter(LATEST_RUN_AT)) {
            // Past the range, MySQL/MariaDB stored a NULL or zero date (the job ran at once) or failed
            // the whole statement, and Instant.MAX overflowed the conversion to microseconds.
            throw new InvalidOptionException("runAt must be between " + EARLIEST_RUN_AT + " and " + LATEST_RUN_AT
                    + ", got " + runAt);
        }
        return new EnqueueOptions(queue, priority, runAt, null, maxAttempts, unique, tags, metadata, concurrency);
    }

    /**
     * These options with the job running no earlier than {@code delay} after the enqueue, measured
     * on the database clock. Replaces any runAt.
     *
     * @throws InvalidOptionException when null, negative or over 100 years
     */
    public EnqueueOptions withDelay(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new InvalidOptionException("delay must be zero or positive, got " + delay);
        }
        if (delay.compareTo(Duration.ofDays(365 * 100)) > 0) {
            throw new InvalidOptionException("delay must be at most 100 years, got " + delay);
        }
        return new EnqueueOptions(queue, priority, null, delay, maxAttempts, unique, tags, metadata, concurrency);
    }

    /**
     * These options with {@code maxAttempts}, 1 to {@link Limits#MAX_ATTEMPTS}, instead of the kind's.
     *
     * @throws InvalidOptionException when out of that range
     */
    public EnqueueOptions withMaxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > Limits.MAX_ATTEMPTS) {
            throw new InvalidOptionException("maxAttempts must be between 1 and " + Limits.MAX_ATTEMPTS + ", got " + maxAttempts);
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts, unique, tags, metadata, concurrency);
    }

    /**
     * These options with the job unique as {@code unique} says (F-10): while another job of the kind
     * holds the same key, the enqueue returns that job instead of inserting one.
     *
     * @throws InvalidOptionException when null
     */
    public EnqueueOptions withUnique(Unique unique) {
        if (unique == null) {
            throw new InvalidOptionException("unique must not be null");
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts, unique, tags, metadata, concurrency);
    }

    /**
     * These options with the job carrying {@code tags}, for finding it later
     * ({@link JobQuery#tag(String)}, {@code skipjack jobs list --tag}, the dashboard). Repeats are
     * kept once; replaces any earlier tags.
     *
     * @throws InvalidOptionException when more than {@link Limits#MAX_TAGS} tags, or a tag is
     *                                malformed ({@link Limits#TAG})
     */
    public EnqueueOptions withTags(String... tags) {
        if (tags == null) {
            throw new InvalidOptionException("tags must not be null");
        }
        java.util.LinkedHashSet<String> set = new java.util.LinkedHashSet<>();
        for (String t : tags) {
            set.add(Limits.requireTag(t));
        }
        if (set.size() > Limits.MAX_TAGS) {
            throw new InvalidOptionException("a job carries at most " + Limits.MAX_TAGS + " tags, got " + set.size());
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts, unique, List.copyOf(set), metadata, concurrency);
    }

    /**
     * These options with {@code metadata} stored beside the job: a JSON object for operators and
     * tools (who enqueued it, a request id), never read by Skipjack. Serialized at enqueue with the
     * client's ObjectMapper; at most {@link Limits#MAX_METADATA_BYTES} bytes of JSON.
     *
     * @throws InvalidOptionException when null (use {@code Map.of()} for none)
     */
    public EnqueueOptions withMetadata(Map<String, ?> metadata) {
        if (metadata == null) {
            throw new InvalidOptionException("metadata must not be null; use Map.of() for none");
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts, unique, tags,
                metadata.isEmpty() ? null : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(metadata)), concurrency);
    }

    /**
     * These options with the job limited by {@code key} (F-12): at most {@code max} jobs carrying
     * the key run at once, across every node and kind. A job over the limit waits (state
     * {@code waiting}) and is admitted in priority and due order as others end. The limit is stored
     * with each job; when jobs of one key ask for different limits, the one next in line decides.
     * For a limit every job of a kind obeys, declare it on the kind: {@link JobKind#limitedTo(int)}.
     *
     * @throws InvalidOptionException when the key is null, empty, longer than
     *                                {@link Limits#MAX_CONCURRENCY_KEY_LENGTH} or not storable text,
     *                                {@code max} is not between 1 and {@link ConcurrencyLimit#MAX},
     *                                or a sequence key is set already
     */
    public EnqueueOptions withConcurrencyKey(String key, int max) {
        Limits.requireConcurrencyKey(key, "concurrency key");
        if (max < 1 || max > ConcurrencyLimit.MAX) {
            throw new InvalidOptionException("the limit of concurrency key '" + key + "' must be between 1 and "
                    + ConcurrencyLimit.MAX + ", got " + max);
        }
        if (concurrency != null && (concurrency.ordered() || concurrency.period() != null)) {
            throw new InvalidOptionException("a job has one concurrency key: " + (concurrency.ordered() ? "sequence" : "rate limit")
                    + " key '" + concurrency.key() + "' is set already, so it cannot also take concurrency key '" + key + "'");
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts, unique, tags, metadata,
                new KeyedConcurrency(key, max, false, null, null));
    }

    /**
     * These options with the job in the sequence {@code key} (F-13), whose jobs run one at a time
     * in the order they were enqueued, across every node and kind; sequences of other keys run
     * side by side. A failing job holds its key through its retries; once discarded, the next runs
     * ({@link SequenceOnDiscard#CONTINUE}). A job not yet due holds back the jobs enqueued after it.
     *
     * @throws InvalidOptionException as {@link #withSequenceKey(String, SequenceOnDiscard)}
     */
    public EnqueueOptions withSequenceKey(String key) {
        return withSequenceKey(key, SequenceOnDiscard.CONTINUE);
    }

    /**
     * As {@link #withSequenceKey(String)}, with what a discarded job does to the key: let the next
     * run ({@link SequenceOnDiscard#CONTINUE}) or block it until an operator acts
     * ({@link SequenceOnDiscard#BLOCK}).
     *
     * @throws InvalidOptionException when the key is null, empty, longer than
     *                                {@link Limits#MAX_CONCURRENCY_KEY_LENGTH} or not storable text,
     *                                {@code onDiscard} is null, or a concurrency key is set already
     */
    public EnqueueOptions withSequenceKey(String key, SequenceOnDiscard onDiscard) {
        Limits.requireConcurrencyKey(key, "sequence key");
        if (onDiscard == null) {
            throw new InvalidOptionException("the discard policy of sequence key '" + key + "' must not be null");
        }
        if (concurrency != null && !concurrency.ordered()) {
            throw new InvalidOptionException("a job has one concurrency key: " + (concurrency.period() != null ? "rate limit" : "concurrency")
                    + " key '" + concurrency.key() + "' is set already, so it cannot also take sequence key '" + key + "'");
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts, unique, tags, metadata,
                new KeyedConcurrency(key, 1, true, onDiscard, null));
    }

    /**
     * These options with the job rate-limited by {@code key} (F-12): at most {@code max} jobs
     * carrying the key start per {@code period}, across every node and kind, e.g.
     * {@code withRateLimit("partner-api", 100, Duration.ofMinutes(1))}. A job over the limit waits
     * (state {@code waiting}); a failed attempt waits again before its retry. For a rate every job
     * of a kind obeys, declare it on the kind: {@link JobKind#rateLimitedTo(int, Duration)}.
     *
     * @throws InvalidOptionException when the key is null, empty, longer than
     *                                {@link Limits#MAX_CONCURRENCY_KEY_LENGTH} or not storable text,
     *                                {@code max} is not between 1 and {@link ConcurrencyLimit#MAX},
     *                                the period is null or not between 1 ms and 1 day, or another
     *                                key is set already
     */
    public EnqueueOptions withRateLimit(String key, int max, Duration period) {
        Limits.requireConcurrencyKey(key, "rate limit key");
        if (max < 1 || max > ConcurrencyLimit.MAX) {
            throw new InvalidOptionException("the limit of rate limit key '" + key + "' must be between 1 and "
                    + ConcurrencyLimit.MAX + ", got " + max);
        }
        if (period == null) {
            throw new InvalidOptionException("the period of rate limit key '" + key + "' must not be null");
        }
        String problem = ConcurrencyLimit.periodProblem(period);
        if (problem != null) {
            throw new InvalidOptionException(problem + " (rate limit key '" + key + "')");
        }
        if (concurrency != null) {
            throw new InvalidOptionException("a job has one concurrency key: " + (concurrency.ordered() ? "sequence" : "concurrency")
                    + " key '" + concurrency.key() + "' is set already, so it cannot also take rate limit key '" + key + "'");
        }
        return new EnqueueOptions(queue, priority, runAt, delay, maxAttempts, unique, tags, metadata,
                new KeyedConcurrency(key, max, false, null, period));
    }

    /** The concurrency key set by {@link #withConcurrencyKey}, null unless set. */
    public String concurrencyKey() {
        return concurrency == null || concurrency.ordered() || concurrency.period() != null ? null : concurrency.key();
    }

    /** The rate limit key set by {@link #withRateLimit}, null unless set. */
    public String rateLimitKey() {
        return concurrency == null || concurrency.period() == null ? null : concurrency.key();
    }

    /** The sequence key set by {@link #withSequenceKey}, null unless set. */
    public String sequenceKey() {
        return concurrency != null && concurrency.ordered() ? concurrency.key() : null;
    }

    KeyedConcurrency concurrency() {
        return concurrency;
    }

    /** The tags, empty unless set. */
    public List<String> tags() {
        return tags;
    }

    /** The metadata, null unless set. */
    public Map<String, ?> metadata() {
        return metadata;
    }

    /** The uniqueness, null unless set. */
    public Unique unique() {
        return unique;
    }

    /** The queue, {@value #DEFAULT_QUEUE} unless set. */
    public String queue() {
        return queue;
    }

    /** The priority, 0 unless set. */
    public int priority() {
        return priority;
    }

    /** Null unless set. */
    public Instant runAt() {
        return runAt;
    }

    /** Null unless set. */
    public Duration delay() {
        return delay;
    }

    /** 0 when not set: the kind's default applies. */
    public int maxAttempts() {
        return maxAttempts;
    }
}
