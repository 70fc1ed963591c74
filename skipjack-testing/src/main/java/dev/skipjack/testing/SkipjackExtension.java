package dev.skipjack.testing;

import dev.skipjack.Skipjack;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * JUnit 5: hands test methods a {@link SkipjackTester} parameter for the client {@code skipjack}
 * supplies, and puts that client's clock back to the database's own time after each test, so time
 * one test moved does not leak into the next.
 *
 * <pre>{@code
 * @RegisterExtension
 * static SkipjackExtension skipjack = SkipjackExtension.of(() -> client);
 *
 * @Test
 * void sendsTheWelcomeMail(SkipjackTester tester) { ... }
 * }</pre>
 *
 * The supplier is called when a test needs the client, not when the extension is made, so a
 * client built in {@code @BeforeAll} or taken from a Spring context works. Needs
 * {@code junit-jupiter-api} (an optional dependency of skipjack-testing; a JUnit 5 test has it).
 */
public final class SkipjackExtension implements ParameterResolver, AfterEachCallback {

    private final Supplier<Skipjack> skipjack;

    private SkipjackExtension(Supplier<Skipjack> skipjack) {
        this.skipjack = skipjack;
    }

    /** An extension for the client {@code skipjack} returns when a test runs. */
    public static SkipjackExtension of(Supplier<Skipjack> skipjack) {
        return new SkipjackExtension(Objects.requireNonNull(skipjack, "skipjack"));
    }

    /** A tester of the supplied client. */
    public SkipjackTester tester() {
        Skipjack client = skipjack.get();
        if (client == null) {
            throw new IllegalStateException("the SkipjackExtension's supplier returned no client: build it before the"
                    + " test runs (a static field set in @BeforeAll, or a bean of the test's context)");
        }
        return SkipjackTester.of(client);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == SkipjackTester.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return tester();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Skipjack client = skipjack.get();
        if (client != null) {
            client.clock().reset();
        }
    }
}
