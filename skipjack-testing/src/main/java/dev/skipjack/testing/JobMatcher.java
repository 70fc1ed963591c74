package dev.skipjack.testing;

import dev.skipjack.JobKind;
import dev.skipjack.JobState;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which enqueued jobs a test means: a kind, and optionally args, a queue and states. Immutable;
 * every method returns a new matcher.
 *
 * <pre>{@code
 * JobMatcher.kind(SEND_EMAIL).args(new SendEmail("ada@example.org")).queue("mail").state(JobState.AVAILABLE)
 * }</pre>
 *
 * Args match when every field the expected args give is in the stored args with an equal value
 * (numbers compared by value, nested objects the same way, arrays element by element): a record
 * given whole must match whole, a {@code Map} of a few fields matches any job with those fields.
 */
public final class JobMatcher {

    private final String kind;
    private final Object args;
    private final String queue;
    private final Set<JobState> states;

    private JobMatcher(String kind, Object args, String queue, Set<JobState> states) {
        this.kind = kind;
        this.args = args;
        this.queue = queue;
        this.states = states;
    }

    /** Jobs of kind {@code kind}, any args, queue and state. */
    public static JobMatcher kind(String kind) {
        Objects.requireNonNull(kind, "kind");
        if (kind.isBlank()) {
            throw new IllegalArgumentException("kind must not be blank");
        }
        return new JobMatcher(kind, null, null, Set.of());
    }

    /** Jobs of the handle's kind. */
    public static JobMatcher kind(JobKind<?> kind) {
        return kind(Objects.requireNonNull(kind, "kind").name());
    }

    /** Only jobs whose args contain these (a record, a bean or a {@code Map}; see the class comment). */
    public JobMatcher args(Object expected) {
        return new JobMatcher(kind, Objects.requireNonNull(expected, "args"), queue, states);
    }

    /** Only jobs in queue {@code name}. */
    public JobMatcher queue(String name) {
        return new JobMatcher(kind, args, Objects.requireNonNull(name, "queue"), states);
    }

    /** Only jobs in one of these states. */
    public JobMatcher state(JobState... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("state() needs at least one state");
        }
        Set<JobState> set = EnumSet.noneOf(JobState.class);
        Arrays.stream(values).map(v -> Objects.requireNonNull(v, "state")).forEach(set::add);
        return new JobMatcher(kind, args, queue, Collections.unmodifiableSet(set));
    }

    String kindName() {
        return kind;
    }

    Object expectedArgs() {
        return args;
    }

    String queueName() {
        return queue;
    }

    Set<JobState> states() {
        return states;
    }

    /** How a failure message names what was looked for. */
    String describe(String argsJson) {
        StringBuilder b = new StringBuilder("kind '").append(kind).append('\'');
        if (argsJson != null) {
            b.append(" with args ").append(argsJson);
        }
        if (queue != null) {
            b.append(" in queue '").append(queue).append('\'');
        }
        if (!states.isEmpty()) {
            b.append(" in state ").append(states.stream().map(JobState::dbValue).toList());
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "JobMatcher[" + describe(args == null ? null : String.valueOf(args)) + "]";
    }
}
