package dev.skipjack.support;

import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Base of the guarantee tests: the whole class runs once per backend in
 * {@link TestBackend#available()} (PostgreSQL and MariaDB, and MySQL where
 * {@code SKIPJACK_TEST_MYSQL_URL} names one), each run with its own fresh schemas.
 */
@ParameterizedClass(name = "on {0}")
@MethodSource("dev.skipjack.support.TestBackend#available")
public abstract class EveryBackendTest extends DatabaseTest {

    @Parameter
    protected TestBackend backend;

    @Override
    protected TestBackend backend() {
        return backend;
    }
}
