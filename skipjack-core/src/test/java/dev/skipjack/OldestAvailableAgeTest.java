package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SkipjackAdmin#oldestAvailableAge()}: per queue, how long its oldest available job has been
 * due, on the database clock; what the Spring Boot health indicator shows per queue. Time is moved
 * with the client's {@link DatabaseClock}, so the ages are exact to the test's own latency.
 */
class OldestAvailableAgeTest extends EveryBackendTest {

    record Note(String text) {
    }

    private static final JobKind<Note> NOTE = JobKind.of("note", Note.class);

    @Test
    void theAgeOfEachQueuesOldestAvailableJobOnTheDatabaseClock() {
        DatabaseClock clock = new DatabaseClock();
        Skipjack client = client(builder().clock(clock).kind(NOTE));
        client.enqueue(NOTE, new Note("oldest"), EnqueueOptions.defaults().withQueue("mail"));
        client.enqueue(NOTE, new Note("later"), EnqueueOptions.defaults().withQueue("mail").withPriority(0));
        client.enqueue(NOTE, new Note("not due"), EnqueueOptions.defaults().withQueue("reports").withDelay(Duration.ofHours(1)));

        clock.advance(Duration.ofSeconds(90));
        client.enqueue(NOTE, new Note("fresh"), EnqueueOptions.defaults().withQueue("sms"));
        Map<String, Duration> ages = client.admin().oldestAvailableAge();

        assertThat(ages).containsOnlyKeys("mail", "sms");
        assertThat(ages.get("mail")).as("due 90 s ago by the moved clock")
                .isBetween(Duration.ofSeconds(90), Duration.ofSeconds(100));
        assertThat(ages.get("sms")).as("just enqueued").isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void noAvailableJobsNoEntries() {
        Skipjack client = client(builder().kind(NOTE));
        client.enqueue(NOTE, new Note("later"), EnqueueOptions.defaults().withDelay(Duration.ofMinutes(5)));
        assertThat(client.admin().oldestAvailableAge()).isEmpty();
    }
}
