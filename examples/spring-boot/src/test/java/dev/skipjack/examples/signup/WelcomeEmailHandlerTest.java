package dev.skipjack.examples.signup;

import dev.skipjack.JobInfo;
import dev.skipjack.JobState;
import dev.skipjack.Skipjack;
import dev.skipjack.testing.JobMatcher;
import dev.skipjack.testing.SkipjackTester;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The welcome-email handler, tested the way docs/testing.md recommends for a Spring application:
 * the real context with its workers off ({@code skipjack.worker-enabled=false}), the sign-up
 * service enqueueing for real, and {@code skipjack-testing}'s {@link SkipjackTester} asserting the
 * job in the database and running it on the test's thread through the handler bean.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = {
        "signup.embedded-database=true",
        "skipjack.worker-enabled=false"})
class WelcomeEmailHandlerTest {

    @Autowired
    Skipjack skipjack;

    @Autowired
    SignupService signups;

    @Autowired
    JdbcClient jdbc;

    SkipjackTester tester;

    @BeforeEach
    void tester() {
        tester = SkipjackTester.of(skipjack);
    }

    @Test
    void theWelcomeEmailJobIsEnqueuedWithTheAccountAndRunsThroughItsHandler() {
        SignupService.Signup signup = signups.signUp("eve@example.com", null);

        JobInfo enqueued = tester.assertEnqueued(WelcomeEmail.KIND, new WelcomeEmail(signup.accountId(), "eve@example.com"));
        assertThat(enqueued.id()).isEqualTo(signup.welcomeEmailJobId());
        assertThat(enqueued.state()).as("no worker runs in this context").isEqualTo(JobState.AVAILABLE);

        JobInfo after = tester.run(enqueued.id());

        assertThat(after.state()).isEqualTo(JobState.COMPLETED);
        assertThat(jdbc.sql("select welcomed_at from accounts where email = ?").param("eve@example.com")
                .query().singleValue()).as("the handler marked the account welcomed").isNotNull();
    }

    @Test
    void aRolledBackSignUpLeavesNothingToRun() {
        assertThatThrownBy(() -> signups.signUp("fay@example.com", "no-such-code"))
                .isInstanceOf(UnknownReferralCodeException.class);

        tester.assertNotEnqueued(JobMatcher.kind(WelcomeEmail.KIND).args(Map.of("email", "fay@example.com")));
    }
}
