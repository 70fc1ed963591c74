package dev.skipjack.testing;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobState;
import dev.skipjack.Skipjack;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SkipjackTester#assertEnqueued}: what was enqueued is read from the jobs table, matched by
 * kind and args (and queue and state when asked), and a failed assertion lists what is there.
 */
class EnqueuedJobsTest extends EveryBackendTest {

    record SendEmail(String to, int template) {
    }

    static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send-email", SendEmail.class);
    static final JobKind<String> REPORT = JobKind.of("report", String.class);

    private Skipjack producer() {
        // Only declared kinds: a producer-only service's client, the usual case in a test of enqueueing code.
        return client(builder().kind(SEND_EMAIL).kind(REPORT));
    }

    @Test
    void findsTheJobWithTheGivenArgs() {
        Skipjack skipjack = producer();
        skipjack.enqueue(SEND_EMAIL, new SendEmail("bob@example.org", 1));
        long ada = skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.org", 2));

        JobInfo found = SkipjackTester.of(skipjack).assertEnqueued(SEND_EMAIL, new SendEmail("ada@example.org", 2));

        assertThat(found.id()).isEqualTo(ada);
        assertThat(found.state()).isEqualTo(JobState.AVAILABLE);
    }

    @Test
    void aMapOfSomeFieldsMatchesJobsHavingThemWithNumbersComparedByValue() {
        Skipjack skipjack = producer();
        long id = skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.org", 2));
        SkipjackTester tester = SkipjackTester.of(skipjack);

        assertThat(tester.assertEnqueued("send-email", Map.of("to", "ada@example.org")).id()).isEqualTo(id);
        assertThat(tester.assertEnqueued("send-email", Map.of("template", 2L)).id()).isEqualTo(id);
        assertThat(tester.enqueued(JobMatcher.kind(SEND_EMAIL).args(Map.of("template", 2.5)))).isEmpty();
    }

    @Test
    void queueAndStateNarrowTheMatch() {
        Skipjack skipjack = producer();
        long inMail = skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.org", 1),
                EnqueueOptions.defaults().withQueue("mail"));
        skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.org", 1));
        SkipjackTester tester = SkipjackTester.of(skipjack);

        assertThat(tester.enqueued(JobMatcher.kind(SEND_EMAIL))).hasSize(2);
        assertThat(tester.assertEnqueued(JobMatcher.kind(SEND_EMAIL).queue("mail")).id()).isEqualTo(inMail);
        tester.assertNotEnqueued(JobMatcher.kind(SEND_EMAIL).state(JobState.COMPLETED));
        assertThat(tester.assertEnqueued(JobMatcher.kind(SEND_EMAIL).state(JobState.AVAILABLE), 2))
                .extracting(JobInfo::queue).containsExactly("mail", "default");
    }

    @Test
    void aFailedAssertionListsWhatWasEnqueued() {
        Skipjack skipjack = producer();
        long bob = skipjack.enqueue(SEND_EMAIL, new SendEmail("bob@example.org", 1));
        skipjack.enqueue(REPORT, "daily");
        skipjack.enqueue(REPORT, "weekly");
        SkipjackTester tester = SkipjackTester.of(skipjack);

        assertThatThrownBy(() -> tester.assertEnqueued(SEND_EMAIL, new SendEmail("ada@example.org", 1)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("expected a job of kind 'send-email' with args {\"to\":\"ada@example.org\",\"template\":1}, found none")
                .hasMessageContaining("Jobs of kind 'send-email' stored (1):")
                .hasMessageContaining("#" + bob + " queue=default state=available attempt=0 args={")
                .hasMessageContaining("bob@example.org")
                .hasMessageContaining("Jobs of other kinds: {report=2}");
    }

    @Test
    void aFailedAssertionSaysWhenNoJobOfTheKindExists() {
        Skipjack skipjack = producer();

        assertThatThrownBy(() -> SkipjackTester.of(skipjack).assertEnqueued(JobMatcher.kind(REPORT).queue("reports")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("expected a job of kind 'report' in queue 'reports', found none")
                .hasMessageContaining("No job of kind 'report' is stored.")
                .hasMessageContaining("No job of another kind.");
    }

    @Test
    void countAndAbsenceAssertionsFailWithTheJobsFound() {
        Skipjack skipjack = producer();
        long daily = skipjack.enqueue(REPORT, "daily");
        SkipjackTester tester = SkipjackTester.of(skipjack);

        assertThatThrownBy(() -> tester.assertNotEnqueued(JobMatcher.kind(REPORT)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("expected no job of kind 'report', found 1:")
                .hasMessageContaining("#" + daily + " queue=default state=available attempt=0 args=\"daily\"");
        assertThatThrownBy(() -> tester.assertEnqueued(JobMatcher.kind(REPORT), 2))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("expected 2 jobs of kind 'report', found 1.");
        assertThat(tester.assertEnqueued(JobMatcher.kind(REPORT).args("daily"), 1)).extracting(JobInfo::id)
                .isEqualTo(List.of(daily));
    }

    @Test
    void badMatchersAreRefusedWhereTheyAreMade() {
        assertThatThrownBy(() -> JobMatcher.kind(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kind must not be blank");
        assertThatThrownBy(() -> JobMatcher.kind("x").state()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("state() needs at least one state");
        assertThatThrownBy(() -> JobMatcher.kind("x").args(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("args");
    }
}
