package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An {@link AuditedDatabaseTest} run once per backend, as the core's {@link EveryBackendTest} runs
 * its guarantee tests (the audit helpers need this test's backend, and a class has one parent).
 */
@ParameterizedClass(name = "on {0}")
@MethodSource("dev.skipjack.support.TestBackend#available")
public abstract class AuditedEveryBackendTest extends AuditedDatabaseTest {

    @Parameter
    protected TestBackend backend;

    @Override
    protected TestBackend backend() {
        return backend;
    }
}
