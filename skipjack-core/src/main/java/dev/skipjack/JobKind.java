package dev.skipjack;

import com.fasterxml.jackson.core.type.TypeReference;

import java.lang.reflect.Type;
import java.util.Objects;
import java.util.function.Function;

/**
 * A job kind: its name bound to the type its args are, so that registering a handler and
 * enqueueing a job name the kind through one constant and the compiler checks the args.
 *
 * <pre>{@code
 * static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send-email", SendEmail.class);
 *
 * Skipjack.builder(dataSource).handler(SEND_EMAIL, job -> ...)   // a worker
 * skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.com", "Welcome"));
 * }</pre>
 *
 * A client enqueues through a handle even when it neither handles nor declares the kind: the args
 * are checked against the handle's type and the job gets the default {@link KindOptions}. A kind
 * registered on the client under the same name must have the same args type.
 *
 * A handle can carry a global {@link #limitedTo(int) concurrency limit} (F-12), which every job
 * enqueued through it (or through a client that registered it) obeys.
 *
 * <p>Immutable; equal when name and args type are equal.
 *
 * @param <T> the args type
 */
public final class JobKind<T> {

    private final String name;
    private final Type argsType;
    private final ConcurrencyLimit<T> limit;

    private JobKind(String name, Type argsType, ConcurrencyLimit<T> limit) {
        this.name = Limits.requireKindNameInConfiguration(name);
        if (argsType == null) {
            throw new InvalidConfigurationException("kind", "the args type of kind '" + name + "' must not be null");
        }
        this.argsType = argsType;
        this.limit = limit;
    }

    /**
     * The kind {@code name} whose args are {@code argsType}, e.g.
     * {@code JobKind.of("send-email", SendEmail.class)}.
     *
     * @throws InvalidConfigurationException (option {@code kind}) when the name is not 1-128 of
     *                                       letters, digits, '_', '-', '.', ':' starting with a
     *                                       letter ({@link Limits#KIND_NAME}), or the type is null
     */
    public static <T> JobKind<T> of(String name, Class<T> argsType) {
        return new JobKind<>(name, argsType, null);
    }

    /**
     * The kind {@code name} whose args are a generic type, e.g.
     * {@code JobKind.of("import", new TypeReference<List<Row>>() {})}.
     *
     * @throws InvalidConfigurationException as {@link #of(String, Class)}
     */
    public static <T> JobKind<T> of(String name, TypeReference<T> argsType) {
        return new JobKind<>(name, argsType == null ? null : argsType.getType(), null);
    }

    /**
     * This kind with a global concurrency limit (F-12): at most {@code max} of its jobs run at once,
     * across every node. A job over the limit waits (state {@code waiting}) and is admitted, in
     * priority and due order, as running ones end; a killed worker's job gives its slot back when
     * its lease is rescued. The limit travels with the handle: enqueue through it, or register it,
     * on every client that enqueues the kind (docs/limits-and-ordering.md).
     *
     * @throws InvalidConfigurationException (option {@code limitedTo}) when {@code max} is not
     *                                       between 1 and {@link ConcurrencyLimit#MAX}
     */
    public JobKind<T> limitedTo(int max) {
        return new JobKind<>(name, argsType, ConcurrencyLimit.of(max, null));
    }

    /**
     * This kind with a concurrency limit per partition of its args (F-12): at most {@code max} jobs
     * of one partition run at once, e.g. {@code limitedTo(2, SyncCustomer::customerId)} for "at
     * most 2 at once per customer". The partition is {@code String.valueOf} of what
     * {@code partition} returns for a job's args, computed at enqueue.
     *
     * @throws InvalidConfigurationException (option {@code limitedTo}) when {@code max} is out of
     *                                       range or {@code partition} is null
     */
    public JobKind<T> limitedTo(int max, Function<? super T, ?> partition) {
        if (partition == null) {
            throw new InvalidConfigurationException("limitedTo", "the partition function of kind '" + name
                    + "' must not be null; use limitedTo(max) for a limit on the whole kind");
        }
        return new JobKind<>(name, argsType, ConcurrencyLimit.of(max, partition));
    }

    /**
     * This kind with a global rate limit (F-12): at most {@code max} of its jobs start per
     * {@code period}, across every node, e.g. {@code rateLimitedTo(100, Duration.ofMinutes(1))}
     * for an API allowing 100 calls a minute. A job over the limit waits (state {@code waiting})
     * until the window allows it; a failed attempt waits again before its retry, so retries count.
     *
     * @throws InvalidConfigurationException (option {@code rateLimitedTo}) when {@code max} is
     *                                       not between 1 and {@link ConcurrencyLimit#MAX} or the
     *                                       period is null or not between 1 ms and 1 day
     */
    public JobKind<T> rateLimitedTo(int max, java.time.Duration period) {
        return new JobKind<>(name, argsType, ConcurrencyLimit.rate(max, period, null));
    }

    /**
     * As {@link #rateLimitedTo(int, java.time.Duration)}, per partition of the args: at most
     * {@code max} jobs of one partition start per {@code period}.
     *
     * @throws InvalidConfigurationException as {@link #rateLimitedTo(int, java.time.Duration)}, or
     *                                       when {@code partition} is null
     */
    public JobKind<T> rateLimitedTo(int max, java.time.Duration period, Function<? super T, ?> partition) {
        if (partition == null) {
            throw new InvalidConfigurationException("rateLimitedTo", "the partition function of kind '" + name
                    + "' must not be null; use rateLimitedTo(max, period) for a limit on the whole kind");
        }
        return new JobKind<>(name, argsType, ConcurrencyLimit.rate(max, period, partition));
    }

    /** The kind's concurrency or rate limit, null when it has none. */
    public ConcurrencyLimit<T> concurrencyLimit() {
        return limit;
    }

    /** The kind's name, as stored in each job's {@code kind} column. */
    public String name() {
        return name;
    }

    /** The type the kind's args serialize from and deserialize to. */
    public Type argsType() {
        return argsType;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JobKind<?> other && name.equals(other.name) && argsType.equals(other.argsType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, argsType);
    }

    /** E.g. {@code JobKind[send-email, com.example.SendEmail]}. */
    @Override
    public String toString() {
        return "JobKind[" + name + ", " + argsType.getTypeName() + (limit == null ? "" : ", " + limit) + "]";
    }
}
