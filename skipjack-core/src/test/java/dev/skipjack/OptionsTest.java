package dev.skipjack;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The option types are immutable: each {@code with} method returns a new instance and leaves the receiver as it was. */
class OptionsTest {

    @Test
    void enqueueOptionsWithMethodsReturnCopies() {
        EnqueueOptions defaults = EnqueueOptions.defaults();
        EnqueueOptions mail = defaults.withQueue("mail").withPriority(7).withMaxAttempts(3).withDelay(Duration.ofMinutes(5));
        assertThat(mail).isNotSameAs(defaults);
        assertThat(defaults.queue()).isEqualTo(EnqueueOptions.DEFAULT_QUEUE);
        assertThat(defaults.priority()).isZero();
        assertThat(defaults.maxAttempts()).isZero();
        assertThat(defaults.delay()).isNull();
        assertThat(mail.queue()).isEqualTo("mail");
        assertThat(mail.priority()).isEqualTo(7);
        assertThat(mail.maxAttempts()).isEqualTo(3);
        assertThat(mail.delay()).isEqualTo(Duration.ofMinutes(5));

        Instant at = Instant.parse("2030-01-01T00:00:00Z");
        EnqueueOptions scheduled = mail.withRunAt(at);
        assertThat(scheduled.runAt()).isEqualTo(at);
        assertThat(scheduled.delay()).as("runAt replaces the delay").isNull();
        assertThat(mail.delay()).isEqualTo(Duration.ofMinutes(5));
        assertThat(scheduled.withDelay(Duration.ZERO).runAt()).as("a delay replaces runAt").isNull();
    }

    @Test
    void kindOptionsWithMethodsReturnCopies() {
        KindOptions defaults = KindOptions.defaults();
        RetryPolicy fixed = RetryPolicy.fixed(Duration.ofSeconds(1));
        KindOptions slow = defaults.withTimeout(Duration.ofSeconds(30)).withRetryPolicy(fixed).withMaxAttempts(5);
        assertThat(defaults.timeout()).isNull();
        assertThat(defaults.maxAttempts()).isEqualTo(EnqueueOptions.DEFAULT_MAX_ATTEMPTS);
        assertThat(defaults.retryPolicy()).isNotSameAs(fixed);
        assertThat(slow.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(slow.retryPolicy()).isSameAs(fixed);
        assertThat(slow.maxAttempts()).isEqualTo(5);
    }

    @Test
    void queueOptionsWithMaxBatchReturnsACopy() {
        QueueOptions bulk = QueueOptions.of("bulk", 16);
        assertThat(bulk.maxBatch()).isEqualTo(QueueOptions.DEFAULT_MAX_BATCH);
        assertThat(bulk.withMaxBatch(20)).isEqualTo(new QueueOptions("bulk", 16, 20));
        assertThat(bulk.maxBatch()).isEqualTo(QueueOptions.DEFAULT_MAX_BATCH);
    }
}
