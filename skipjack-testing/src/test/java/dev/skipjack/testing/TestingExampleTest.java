package dev.skipjack.testing;

import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobState;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.RetryPolicy;
import dev.skipjack.Skipjack;
import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** The example of docs/testing.md, kept compiling and passing here. Keep the two in step. */
class TestingExampleTest extends DatabaseTest {

    // --- the application's code
    record SendWelcome(String email) {
    }

    static final JobKind<SendWelcome> SEND_WELCOME = JobKind.of("send-welcome", SendWelcome.class);

    /** Registers a user and enqueues the welcome mail. */
    record Signups(Skipjack skipjack) {
        void register(String email) {
            skipjack.enqueue(SEND_WELCOME, new SendWelcome(email));
        }
    }

    /** The mail gateway; down for the first try in the test below. */
    static final class Mailer {
        final List<String> sent = new CopyOnWriteArrayList<>();
        boolean down;

        void send(String to) {
            if (down) {
                throw new IllegalStateException("mail gateway unavailable");
            }
            sent.add(to);
        }
    }

    // --- the test
    final Mailer mailer = new Mailer();
    Skipjack skipjack;

    @RegisterExtension
    final SkipjackExtension skipjackExtension = SkipjackExtension.of(() -> skipjack);

    @BeforeEach
    void buildClient() {
        // In a Spring Boot test: @Autowired Skipjack skipjack, then SkipjackTester.of(skipjack).
        skipjack = client(builder().handler(SEND_WELCOME,
                KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ofMinutes(1))),
                job -> {
                    mailer.send(job.args().email());
                    return Outcome.complete();
                }));
    }

    @Test
    void registeringSendsAWelcomeMail(SkipjackTester tester) {
        new Signups(skipjack).register("ada@example.org");

        JobInfo job = tester.assertEnqueued(SEND_WELCOME, new SendWelcome("ada@example.org"));
        JobInfo after = tester.run(job.id());

        assertThat(after.state()).isEqualTo(JobState.COMPLETED);
        assertThat(mailer.sent).containsExactly("ada@example.org");
    }

    @Test
    void aMailThatFailsIsRetriedAMinuteLater(SkipjackTester tester) {
        mailer.down = true;
        new Signups(skipjack).register("ada@example.org");

        assertThat(tester.drain().jobs(JobState.RETRYABLE)).hasSize(1);

        mailer.down = false;
        tester.advanceClock(Duration.ofMinutes(1));

        assertThat(tester.drain().jobs(JobState.COMPLETED)).hasSize(1);
        assertThat(mailer.sent).containsExactly("ada@example.org");
    }
}
