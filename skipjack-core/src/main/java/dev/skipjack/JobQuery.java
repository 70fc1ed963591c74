package dev.skipjack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which jobs an operator means: an immutable filter for {@link SkipjackAdmin}. Every setter
 * returns a new query; an unset filter matches everything.
 *
 * <pre>{@code
 * // all discarded send-email jobs for user 42, newest first, 50 at a time
 * JobQuery q = JobQuery.all().kind("send-email").state(JobState.DISCARDED).argsContain("{\"userId\": 42}");
 * JobPage page = admin.jobs(q);
 * JobPage next = admin.jobs(q.after(page.nextCursor()));
 * }</pre>
 *
 * Pages are by keyset on the job id (newest first): {@link #after(Long)} takes the cursor of the
 * previous page, so every page costs the same however deep it is.
 */
public final class JobQuery {

    /** Page size when none is set. */
    public static final int DEFAULT_LIMIT = 50;
    /** Largest page size. */
    public static final int MAX_LIMIT = 10_000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JobQuery ALL = new JobQuery(Set.of(), Set.of(), Set.of(), null, null, null, null, null, DEFAULT_LIMIT);

    private final Set<String> queues;
    private final Set<String> kinds;
    private final Set<JobState> states;
    private final Instant createdFrom;
    private final Instant createdBefore;
    private final String argsContain;
    private final String tag;
    private final Long after;
    private final int limit;

    private JobQuery(Set<String> queues, Set<String> kinds, Set<JobState> states, Instant createdFrom,
                     Instant createdBefore, String argsContain, String tag, Long after, int limit) {
        this.queues = queues;
        this.kinds = kinds;
        this.states = states;
        this.createdFrom = createdFrom;
        this.createdBefore = createdBefore;
        this.argsContain = argsContain;
        this.tag = tag;
        this.after = after;
        this.limit = limit;
    }

    /** Every job, newest first, {@link #DEFAULT_LIMIT} per page. */
    public static JobQuery all() {
        return ALL;
    }

    /** Jobs in any of these queues. */
    public JobQuery queue(String... names) {
        Set<String> set = new LinkedHashSet<>();
        for (String n : requireNonEmpty("queue", names)) {
            set.add(Limits.requireQueueName(n));
        }
        return new JobQuery(Collections.unmodifiableSet(set), kinds, states, createdFrom, createdBefore, argsContain, tag, after, limit);
    }

    /** Jobs of any of these kinds. */
    public JobQuery kind(String... names) {
        Set<String> set = new LinkedHashSet<>();
        for (String n : requireNonEmpty("kind", names)) {
            set.add(Limits.requireKindName(n));
        }
        return new JobQuery(queues, Collections.unmodifiableSet(set), states, createdFrom, createdBefore, argsContain, tag, after, limit);
    }

    /** Jobs in any of these states. */
    public JobQuery state(JobState... values) {
        EnumSet<JobState> set = EnumSet.noneOf(JobState.class);
        for (JobState s : requireNonEmpty("state", values)) {
            set.add(Objects.requireNonNull(s, "state"));
        }
        return new JobQuery(queues, kinds, Collections.unmodifiableSet(set), createdFrom, createdBefore, argsContain, tag, after, limit);
    }

    /** Jobs created at or after {@code from} (null: no lower bound). */
    public JobQuery createdFrom(Instant from) {
        requireOrdered(from, createdBefore);
        return new JobQuery(queues, kinds, states, from, createdBefore, argsContain, tag, after, limit);
    }

    /** Jobs created before {@code before} (null: no upper bound). */
    public JobQuery createdBefore(Instant before) {
        requireOrdered(createdFrom, before);
        return new JobQuery(queues, kinds, states, createdFrom, before, argsContain, tag, after, limit);
    }

    /**
     * Jobs whose args contain this JSON document, by PostgreSQL's jsonb containment ({@code @>}):
     * {@code {"userId": 42}} matches args that have {@code userId} equal to the number 42, whatever
     * else they hold. Null removes the filter.
     *
     * @throws InvalidOptionException if the text is not a JSON object or array
     */
    public JobQuery argsContain(String json) {
        String normalized = null;
        if (json != null) {
            JsonNode tree;
            try {
                tree = JSON.readTree(json);
            } catch (JsonProcessingException e) {
                throw new InvalidOptionException("args filter is not valid JSON: " + Limits.quote(json)
                        + " (" + e.getOriginalMessage() + ")");
            }
            if (tree == null || !(tree.isObject() || tree.isArray())) {
                throw new InvalidOptionException("args filter must be a JSON object or array, e.g. {\"userId\": 42}; got "
                        + Limits.quote(json));
            }
            normalized = tree.toString();
        }
        return new JobQuery(queues, kinds, states, createdFrom, createdBefore, normalized, tag, after, limit);
    }

    /**
     * Jobs carrying {@code tag} ({@link EnqueueOptions#withTags}). Null removes the filter.
     *
     * @throws InvalidOptionException when the tag is malformed ({@link Limits#TAG})
     */
    public JobQuery tag(String tag) {
        return new JobQuery(queues, kinds, states, createdFrom, createdBefore, argsContain,
                tag == null ? null : Limits.requireTag(tag), after, limit);
    }

    /** Continues after a previous page: {@code cursor} is its {@link JobPage#nextCursor()}; null starts at the newest. */
    public JobQuery after(Long cursor) {
        if (cursor != null && cursor < 1) {
            throw new InvalidOptionException("page cursor must be a positive job id, got " + cursor);
        }
        return new JobQuery(queues, kinds, states, createdFrom, createdBefore, argsContain, tag, cursor, limit);
    }

    /** Jobs per page, 1 to {@link #MAX_LIMIT}. */
    public JobQuery limit(int pageSize) {
        if (pageSize < 1 || pageSize > MAX_LIMIT) {
            throw new InvalidOptionException("page size must be between 1 and " + MAX_LIMIT + ", got " + pageSize);
        }
        return new JobQuery(queues, kinds, states, createdFrom, createdBefore, argsContain, tag, after, pageSize);
    }

    public Set<String> queues() {
        return queues;
    }

    public Set<String> kinds() {
        return kinds;
    }

    public Set<JobState> states() {
        return states;
    }

    public Instant createdFrom() {
        return createdFrom;
    }

    public Instant createdBefore() {
        return createdBefore;
    }

    /** The args filter as normalized JSON text, or null. */
    public String argsContain() {
        return argsContain;
    }

    /** The tag filter, or null. */
    public String tag() {
        return tag;
    }

    /** The cursor this page starts after, or null. */
    public Long after() {
        return after;
    }

    public int limit() {
        return limit;
    }

    @Override
    public String toString() {
        return "JobQuery{queues=" + queues + ", kinds=" + kinds + ", states=" + states + ", createdFrom=" + createdFrom
                + ", createdBefore=" + createdBefore + ", argsContain=" + argsContain + ", tag=" + tag + ", after=" + after
                + ", limit=" + limit + '}';
    }

    @SafeVarargs
    private static <T> java.util.List<T> requireNonEmpty(String what, T... values) {
        if (values == null || values.length == 0) {
            throw new InvalidOptionException("at least one " + what + " is required");
        }
        return Arrays.asList(values);
    }

    private static void requireOrdered(Instant from, Instant before) {
        if (from != null && before != null && !from.isBefore(before)) {
            throw new InvalidOptionException("createdFrom " + from + " must be before createdBefore " + before);
        }
    }
}
