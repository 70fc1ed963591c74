package dev.skipjack;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The typed kind handle: a producer enqueues through a {@link JobKind} without registering
 * anything, a worker that registered the handle runs the job with typed args, and a handle that
 * disagrees with this client's registration, or carries a bad name, is refused.
 */
class JobKindTest extends DatabaseTest {

    record SendEmail(String to, String subject) {
    }

    record Line(String sku, int quantity) {
    }

    static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send-email", SendEmail.class);
    static final JobKind<List<Line>> IMPORT = JobKind.of("import-lines", new TypeReference<List<Line>>() {
    });

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void aProducerThatRegisteredNothingEnqueuesThroughTheHandleAndAWorkerRunsItWithTypedArgs() throws Exception {
        Skipjack producer = client(builder());
        assertThat(producer.kinds()).as("the producer neither handles nor declares a kind").isEmpty();
        Map<Long, Object> received = new ConcurrentHashMap<>();
        Skipjack worker = client(builder().queue("default", 2)
                .handler(SEND_EMAIL, job -> {
                    SendEmail args = job.args(); // typed: no cast
                    received.put(job.id(), args);
                    return Outcome.complete();
                })
                .handler(IMPORT, job -> {
                    received.put(job.id(), job.args());
                    return Outcome.complete();
                }));

        long plain = producer.enqueue(SEND_EMAIL, new SendEmail("ada@example.com", "Welcome"));
        long withOptions = producer.enqueue(SEND_EMAIL, new SendEmail("alan@example.com", "Hello"),
                EnqueueOptions.defaults().withPriority(3).withMaxAttempts(2));
        long inTransaction;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            inTransaction = producer.enqueue(c, SEND_EMAIL, new SendEmail("grace@example.com", "Hi"));
            c.commit();
        }
        List<Long> batch = producer.enqueueAll(List.of(
                JobRequest.of(IMPORT, List.of(new Line("a-1", 2), new Line("b-2", 1))),
                JobRequest.of(SEND_EMAIL, new SendEmail("edsger@example.com", "Batch"), EnqueueOptions.defaults().withQueue("default"))));

        JobInfo stored = producer.find(plain).orElseThrow();
        assertThat(stored.kind()).isEqualTo("send-email");
        assertThat(stored.maxAttempts()).as("default KindOptions").isEqualTo(EnqueueOptions.DEFAULT_MAX_ATTEMPTS);
        assertThat(producer.find(withOptions).orElseThrow().priority()).isEqualTo(3);
        assertThat(producer.find(withOptions).orElseThrow().maxAttempts()).isEqualTo(2);

        worker.start();
        for (long id : List.of(plain, withOptions, inTransaction, batch.get(0), batch.get(1))) {
            awaitState(worker, id, JobState.COMPLETED, WAIT);
        }
        assertThat(received.get(plain)).isEqualTo(new SendEmail("ada@example.com", "Welcome"));
        assertThat(received.get(inTransaction)).isEqualTo(new SendEmail("grace@example.com", "Hi"));
        assertThat(received.get(batch.get(0))).as("generic args read back as List<Line>")
                .isEqualTo(List.of(new Line("a-1", 2), new Line("b-2", 1)));
        assertThat(received.get(batch.get(1))).isEqualTo(new SendEmail("edsger@example.com", "Batch"));
    }

    @Test
    void aHandleOfAKindRegisteredHereUsesTheRegisteredOptions() {
        Skipjack s = client(builder().kind(SEND_EMAIL, KindOptions.defaults().withMaxAttempts(3)));
        long byHandle = s.enqueue(SEND_EMAIL, new SendEmail("ada@example.com", "Welcome"));
        long byName = s.enqueue("send-email", new SendEmail("ada@example.com", "Welcome"));
        assertThat(s.find(byHandle).orElseThrow().maxAttempts()).isEqualTo(3);
        assertThat(s.find(byName).orElseThrow().maxAttempts()).isEqualTo(3);
        assertThat(s.kinds()).containsExactly("send-email");
    }

    @Test
    void aHandleWhoseArgsTypeDisagreesWithTheRegisteredKindIsRefused() {
        record Other(String to) {
        }
        JobKind<Other> sameNameOtherType = JobKind.of("send-email", Other.class);
        Skipjack s = client(builder().kind(SEND_EMAIL));
        assertThatThrownBy(() -> s.enqueue(sameNameOtherType, new Other("ada@example.com")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasFieldOrPropertyWithValue("option", "kind")
                .hasMessageContaining("send-email")
                .hasMessageContaining("SendEmail")
                .hasMessageContaining("Other");
        assertThatThrownBy(() -> s.enqueueAll(List.of(JobRequest.of(SEND_EMAIL, new SendEmail("a@example.com", "ok")),
                JobRequest.of(sameNameOtherType, new Other("b@example.com")))))
                .isInstanceOf(InvalidConfigurationException.class);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).as("nothing inserted").isZero();
        // The registered type still enqueues.
        s.enqueue(SEND_EMAIL, new SendEmail("ada@example.com", "Welcome"));
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "1starts-with-digit", "has space", "x;drop table", "ünïcode", "-dash", "tab\t"})
    void invalidNamesAreRefusedAtCreation(String name) {
        assertThatThrownBy(() -> JobKind.of(name, SendEmail.class))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasFieldOrPropertyWithValue("option", "kind")
                .hasMessageContaining("invalid kind name");
        assertThatThrownBy(() -> JobKind.of(name, new TypeReference<List<Line>>() {
        })).isInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void nameLimitsAndNullTypesAtCreation() {
        assertThat(JobKind.of("a" + "b".repeat(127), SendEmail.class).name()).hasSize(128);
        assertThatThrownBy(() -> JobKind.of("a" + "b".repeat(128), SendEmail.class))
                .isInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> JobKind.of("send-email", (Class<SendEmail>) null))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "kind");
        assertThatThrownBy(() -> JobKind.of("send-email", (TypeReference<SendEmail>) null))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "kind");
    }

    @Test
    void handlesAreEqualByNameAndType() {
        assertThat(JobKind.of("send-email", SendEmail.class)).isEqualTo(SEND_EMAIL).hasSameHashCodeAs(SEND_EMAIL);
        assertThat(JobKind.of("import-lines", new TypeReference<List<Line>>() {
        })).isEqualTo(IMPORT).hasSameHashCodeAs(IMPORT);
        assertThat(JobKind.of("send-mail", SendEmail.class)).isNotEqualTo(SEND_EMAIL);
        assertThat(JobKind.of("send-email", Line.class)).isNotEqualTo(SEND_EMAIL);
        assertThat(SEND_EMAIL).hasToString("JobKind[send-email, " + SendEmail.class.getTypeName() + "]");
        assertThat(IMPORT.toString()).contains("java.util.List<").contains("Line>");
    }
}
