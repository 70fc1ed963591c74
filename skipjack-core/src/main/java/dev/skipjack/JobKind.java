package dev.skipjack;

import com.fasterxml.jackson.core.type.TypeReference;

import java.lang.reflect.Type;
import java.util.Objects;

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
 * <p>Immutable; equal when name and args type are equal.
 *
 * @param <T> the args type
 */
public final class JobKind<T> {

    private final String name;
    private final Type argsType;

    private JobKind(String name, Type argsType) {
        this.name = Limits.requireKindNameInConfiguration(name);
        if (argsType == null) {
            throw new InvalidConfigurationException("kind", "the args type of kind '" + name + "' must not be null");
        }
        this.argsType = argsType;
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
        return new JobKind<>(name, argsType);
    }

    /**
     * The kind {@code name} whose args are a generic type, e.g.
     * {@code JobKind.of("import", new TypeReference<List<Row>>() {})}.
     *
     * @throws InvalidConfigurationException as {@link #of(String, Class)}
     */
    public static <T> JobKind<T> of(String name, TypeReference<T> argsType) {
        return new JobKind<>(name, argsType == null ? null : argsType.getType());
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
        return "JobKind[" + name + ", " + argsType.getTypeName() + "]";
    }
}
