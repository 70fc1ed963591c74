package dev.skipjack.testing;

import dev.skipjack.DatabaseClock;
import dev.skipjack.Skipjack;
import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SkipjackExtension}: test methods get a tester of the supplied client, and a clock one test
 * moved is back at the database's own time for the next.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SkipjackExtensionTest extends DatabaseTest {

    /** Shared by the tests below, as a client bean shared by a Spring context's tests would be. */
    private static final DatabaseClock CLOCK = new DatabaseClock();

    private Skipjack skipjack;

    @RegisterExtension
    final SkipjackExtension extension = SkipjackExtension.of(() -> skipjack);

    @BeforeEach
    void client() {
        skipjack = client(builder().clock(CLOCK));
    }

    @Test
    @Order(1)
    void aTestMethodGetsATesterOfTheSuppliedClient(SkipjackTester tester) {
        assertThat(tester.skipjack()).isSameAs(skipjack);
        tester.advanceClock(Duration.ofHours(2));
        assertThat(CLOCK.offset()).isEqualTo(Duration.ofHours(2));
    }

    @Test
    @Order(2)
    void theClockMovedByTheTestBeforeIsBackAtTheDatabasesTime() {
        assertThat(CLOCK.offset()).isZero();
    }

    @Test
    void aSupplierWithoutAClientIsAClearError() {
        assertThatThrownBy(() -> SkipjackExtension.of(() -> null).tester())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the SkipjackExtension's supplier returned no client");
    }
}
