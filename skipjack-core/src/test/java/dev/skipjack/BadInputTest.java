package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SPEC "Bad input": every public entry point refuses bad values with a specific error and inserts
 * nothing; a bad job already in the table is discarded with the reason recorded, and the worker
 * loop keeps running the healthy jobs around it.
 */
class BadInputTest extends DatabaseTest {

    record Payment(int cents, String currency) {
    }

    record Note(String text) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    private Skipjack enqueuer() {
        return client(builder().kind(JobKind.of("payment", Payment.class)).kind(JobKind.of("note", Note.class)));
    }

    private long jobCount() {
        return queryLong("SELECT count(*) FROM " + jobsTable());
    }

    // ------------------------------------------------------------ at enqueue

    @Test
    void unknownKindIsRefusedAndNothingInserted() {
        Skipjack s = enqueuer();
        assertThatThrownBy(() -> s.enqueue("refund", new Payment(1, "EUR")))
                .isInstanceOf(UnknownKindException.class)
                .hasMessageContaining("refund");
        assertThat(jobCount()).isZero();
    }

    @Test
    void malformedKindNameIsRefused() {
        Skipjack s = enqueuer();
        assertThatThrownBy(() -> s.enqueue("pay ment; drop", new Payment(1, "EUR")))
                .isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> s.enqueue((String) null, new Payment(1, "EUR"))).isInstanceOf(InvalidOptionException.class);
        assertThat(jobCount()).isZero();
    }

    @Test
    void argsOfTheWrongShapeAreRefusedAsInvalidArgs() {
        Skipjack s = enqueuer();
        assertThatThrownBy(() -> s.enqueue("payment", Map.of("cents", "a lot", "currency", "EUR")))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("payment");
        assertThat(jobCount()).isZero();
    }

    @Test
    void argsWithUnknownFieldsAreRefusedAsInvalidArgs() {
        Skipjack s = enqueuer();
        assertThatThrownBy(() -> s.enqueue("payment", Map.of("cents", 5, "currency", "EUR", "surprise", true)))
                .isInstanceOf(InvalidArgsException.class);
        assertThat(jobCount()).isZero();
    }

    @Test
    void argsThatCannotBeSerializedAreRefusedAsInvalidArgs() {
        Skipjack s = enqueuer();
        Object unserializable = new Object(); // no properties: Jackson refuses empty beans
        assertThatThrownBy(() -> s.enqueue("note", unserializable)).isInstanceOf(InvalidArgsException.class);
        assertThat(jobCount()).isZero();
    }

    /** Two fields of one property name: Jackson cannot describe the type at all. */
    static final class Ambiguous {
        @com.fasterxml.jackson.annotation.JsonProperty("x")
        public int a;
        @com.fasterxml.jackson.annotation.JsonProperty("x")
        public int b;
    }

    @Test
    void aKindWhoseArgsTypeJacksonCannotDescribeStillBuildsAndItsEnqueueIsRefusedAsInvalidArgs() {
        // build() resolves every kind's args type ahead, as a warm-up: a type Jackson refuses must
        // not fail the build of a client that also serves other kinds; its enqueue says why.
        Skipjack s = client(builder().kind(JobKind.of("ambiguous", Ambiguous.class)).kind(JobKind.of("note", Note.class)));
        assertThatThrownBy(() -> s.enqueue("ambiguous", new Ambiguous()))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("ambiguous")
                .hasMessageContaining("Multiple fields representing property \"x\"");
        assertThat(jobCount()).isZero();
        s.enqueue("note", new Note("still fine"));
        assertThat(jobCount()).isOne();
    }

    record Broken(int n) {
    }

    @Test
    void aKindWhoseSerializerLookupThrowsStillBuildsAndOnlyItsOwnEnqueueFails() {
        // A module with a bug: its serializer lookup throws for one type, not with a Jackson error
        // (which Jackson's own prefetch would swallow). The warm-up at build() must not fail for it.
        com.fasterxml.jackson.databind.module.SimpleModule broken = new com.fasterxml.jackson.databind.module.SimpleModule();
        broken.setSerializers(new com.fasterxml.jackson.databind.module.SimpleSerializers() {
            @Override
            public com.fasterxml.jackson.databind.JsonSerializer<?> findSerializer(
                    com.fasterxml.jackson.databind.SerializationConfig config, com.fasterxml.jackson.databind.JavaType type,
                    com.fasterxml.jackson.databind.BeanDescription description) {
                if (type.getRawClass() == Broken.class) {
                    throw new IllegalStateException("module bug for Broken");
                }
                return super.findSerializer(config, type, description);
            }
        });
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper().registerModule(broken);
        Skipjack s = client(builder().objectMapper(mapper).kind(JobKind.of("broken", Broken.class))
                .kind(JobKind.of("note", Note.class)));
        assertThatThrownBy(() -> s.enqueue("broken", new Broken(1))).hasMessageContaining("module bug for Broken");
        assertThat(jobCount()).isZero();
        s.enqueue("note", new Note("still fine"));
        assertThat(jobCount()).isOne();
    }

    record Ledger(java.math.BigInteger balance, Map<String, String> labels) {
    }

    @Test
    void argsPastTheParsersLimitsAreRefusedAlsoAfterTheirTypeReadBackOnce() {
        Skipjack s = client(builder().kind(JobKind.of("ledger", Ledger.class)));
        // The first enqueue of the type reads it back whole; later ones of the same type do not.
        s.enqueue("ledger", new Ledger(java.math.BigInteger.TEN, Map.of("a", "b")));
        s.enqueue("ledger", new Ledger(java.math.BigInteger.TWO, Map.of("c", "d")));

        // A worker's parser refuses a number of over 1,000 digits (Jackson's default limit).
        java.math.BigInteger huge = java.math.BigInteger.TEN.pow(1_500);
        assertThatThrownBy(() -> s.enqueue("ledger", new Ledger(huge, Map.of())))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("ledger")
                .hasMessageContaining("1000");
        assertThatThrownBy(() -> s.enqueueAll(List.of(
                JobRequest.of("ledger", new Ledger(java.math.BigInteger.ONE, Map.of())),
                JobRequest.of("ledger", new Ledger(huge, Map.of())))))
                .isInstanceOf(InvalidArgsException.class);
        if (com.fasterxml.jackson.core.json.PackageVersion.VERSION.getMinorVersion() >= 16) {
            // Names of over 50,000 characters, since Jackson 2.16.
            assertThatThrownBy(() -> s.enqueue("ledger", new Ledger(java.math.BigInteger.ONE, Map.of("k".repeat(60_000), "v"))))
                    .isInstanceOf(InvalidArgsException.class)
                    .hasMessageContaining("50000");
        }
        // Long args within the limits are still taken.
        s.enqueue("ledger", new Ledger(java.math.BigInteger.TEN.pow(900), Map.of("k".repeat(10_000), "v".repeat(100_000))));
        assertThat(jobCount()).isEqualTo(3);
    }

    @Test
    void argsThatSerializeToJsonNullAreRefusedAsInvalidArgs() {
        Skipjack s = enqueuer();
        // A job whose stored args are JSON null could never run (see rowWithJsonNullArgsIsDiscardedAsInvalidArgs).
        assertThatThrownBy(() -> s.enqueue("payment", com.fasterxml.jackson.databind.node.NullNode.getInstance()))
                .isInstanceOf(InvalidArgsException.class);
        assertThat(jobCount()).isZero();
    }

    @Test
    void oversizedArgsAreRefused() {
        Skipjack s = client(builder().kind(JobKind.of("note", Note.class)).maxArgsBytes(1000));
        assertThatThrownBy(() -> s.enqueue("note", new Note("x".repeat(2000))))
                .isInstanceOf(ArgsTooLargeException.class)
                .hasMessageContaining("1000");
        assertThat(jobCount()).isZero();
    }

    @Test
    void argsSizeLimitIsInUtf8BytesAndInclusive() {
        Skipjack s = client(builder().kind(JobKind.of("note", Note.class)).maxArgsBytes(1000));
        // {"text":"..."} is 11 bytes of JSON around the text.
        assertThatCode(() -> s.enqueue("note", new Note("x".repeat(989)))).doesNotThrowAnyException();
        assertThatThrownBy(() -> s.enqueue("note", new Note("x".repeat(990)))).isInstanceOf(ArgsTooLargeException.class);
        // 600 characters, but 1,200 bytes of UTF-8.
        assertThatThrownBy(() -> s.enqueue("note", new Note("é".repeat(600)))).isInstanceOf(ArgsTooLargeException.class);
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void oneBadRequestInABatchInsertsNoneOfTheBatch() {
        Skipjack s = enqueuer();
        assertThatThrownBy(() -> s.enqueueAll(List.of(
                JobRequest.of("payment", new Payment(1, "EUR")),
                JobRequest.of("payment", Map.of("cents", "NaN")),
                JobRequest.of("payment", new Payment(3, "EUR")))))
                .isInstanceOf(InvalidArgsException.class);
        assertThat(jobCount()).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 101, Integer.MIN_VALUE, Integer.MAX_VALUE})
    void priorityOutOfRangeIsRefused(int priority) {
        assertThatThrownBy(() -> EnqueueOptions.defaults().withPriority(priority)).isInstanceOf(InvalidOptionException.class);
    }

    @Test
    void priorityBoundsAreAccepted() {
        Skipjack s = enqueuer();
        s.enqueue("note", new Note("a"), EnqueueOptions.defaults().withPriority(0));
        s.enqueue("note", new Note("b"), EnqueueOptions.defaults().withPriority(100));
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE priority IN (0, 100)")).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Limits.MAX_ATTEMPTS + 1})
    void maxAttemptsOutOfRangeIsRefused(int maxAttempts) {
        assertThatThrownBy(() -> EnqueueOptions.defaults().withMaxAttempts(maxAttempts)).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> KindOptions.defaults().withMaxAttempts(maxAttempts)).isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "maxAttempts");
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "UPPER", "a b", "x;drop table", "-leading-dash", "queue\n", "ünïcode",
            "a-very-long-queue-name-that-goes-on-and-on-and-on-past-sixty-four-chars"})
    void invalidQueueNameIsRefused(String queue) {
        assertThatThrownBy(() -> EnqueueOptions.defaults().withQueue(queue)).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> QueueOptions.of(queue, 1)).isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "queue(name)");
    }

    @Test
    void negativeDelayIsRefused() {
        assertThatThrownBy(() -> EnqueueOptions.defaults().withDelay(Duration.ofMillis(-1))).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> EnqueueOptions.defaults().withDelay(null)).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> EnqueueOptions.defaults().withRunAt(null)).isInstanceOf(InvalidOptionException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"+1000000000-12-31T23:59:59.999999999Z", "-1000000000-01-01T00:00:00Z", "+10000-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z", "9999-12-31T00:00:00Z"})
    void runAtOutsideWhatEveryBackendStoresIsRefused(String runAt) {
        assertThatThrownBy(() -> EnqueueOptions.defaults().withRunAt(Instant.parse(runAt)))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("runAt must be between");
    }

    @Test
    void absurdDelayIsRefused() {
        assertThatThrownBy(() -> EnqueueOptions.defaults().withDelay(Duration.ofDays(365L * 1000)))
                .isInstanceOf(InvalidOptionException.class);
    }

    @Test
    void invalidConfigurationIsRefusedNamingTheOption() {
        assertRefused("timeout", () -> KindOptions.defaults().withTimeout(Duration.ZERO));
        assertRefused("timeout", () -> KindOptions.defaults().withTimeout(Duration.ofSeconds(-1)));
        assertRefused("retryPolicy", () -> KindOptions.defaults().withRetryPolicy(null));
        assertRefused("retryPolicy", () -> RetryPolicy.exponential(Duration.ZERO, Duration.ofSeconds(1)));
        assertRefused("retryPolicy", () -> RetryPolicy.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertRefused("retryPolicy", () -> RetryPolicy.fixed(Duration.ofMillis(-1)));
        assertRefused("queue(concurrency)", () -> QueueOptions.of("default", 0));
        assertRefused("queue(concurrency)", () -> builder().queue("default", 10_001));
        assertRefused("queue(maxBatch)", () -> new QueueOptions("default", 1, 0));
        assertRefused("queue(maxBatch)", () -> QueueOptions.of("default", 1).withMaxBatch(1001));
        assertRefused("lease", () -> builder().lease(Duration.ofMillis(999)));
        assertRefused("pollInterval", () -> builder().pollInterval(null));
        assertRefused("rescueInterval", () -> builder().rescueInterval(Duration.ofMillis(99)));
        assertRefused("promoteInterval", () -> builder().promoteInterval(Duration.ZERO));
        assertRefused("shutdownTimeout", () -> builder().shutdownTimeout(Duration.ofSeconds(-1)));
        assertRefused("maxArgsBytes", () -> builder().maxArgsBytes(1));
        assertRefused("workerId", () -> builder().workerId(" "));
        assertRefused("kind", () -> builder().handler(JobKind.of("bad kind", Note.class), job -> null));
        assertRefused("schema", () -> builder().schema("Bad Schema"));
        assertRefused("tablePrefix", () -> builder().tablePrefix("Bad-"));
    }

    @Test
    void aKindRegisteredTwiceIsRefused() {
        JobKind<Note> note = JobKind.of("note", Note.class);
        assertRefused("kind", () -> builder().handler(note, job -> Outcome.complete()).kind(note));
        assertThatThrownBy(() -> builder().kind(note).transactionalHandler(JobKind.of("note", Payment.class), (job, tx) -> null))
                .hasMessageContaining("Note").hasMessageContaining("Payment");
    }

    @Test
    void startWithoutAQueueIsRefused() {
        Skipjack s = client(builder().handler(JobKind.of("note", Note.class), job -> Outcome.complete()));
        assertRefused("queue", s::start);
    }

    private static void assertRefused(String option, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).as(option)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasFieldOrPropertyWithValue("option", option)
                .satisfies(e -> assertThat(e.getMessage().replace(" ", "").toLowerCase())
                        .as("the message names the option").contains(optionWord(option)));
    }

    /** {@code queue(maxBatch)} is named "maxBatch" in the message, {@code tablePrefix} "table prefix". */
    private static String optionWord(String option) {
        return option.replaceAll("^\\w+\\((\\w+)\\)$", "$1").toLowerCase();
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "public; drop", "Robert'); --", "\"quoted\"", "Public", "1starts_with_digit",
            "has space", "a.b"})
    void invalidSchemaIsRefusedAtBuilderTime(String schemaName) {
        assertThatThrownBy(() -> Skipjack.builder(dataSource).schema(schemaName))
                .isInstanceOf(InvalidIdentifierException.class);
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"Robert'); --", "public; drop", "x\"", "UPPER_", "has space", "9lives"})
    void invalidTablePrefixIsRefusedAtBuilderTime(String prefix) {
        assertThatThrownBy(() -> Skipjack.builder(dataSource).tablePrefix(prefix))
                .isInstanceOf(InvalidIdentifierException.class);
    }

    @Test
    void validCustomSchemaAndPrefixWork() {
        String custom = schema + "_x";
        Skipjack s = client(Skipjack.builder(dataSource).schema(custom).tablePrefix("q_").kind(JobKind.of("note", Note.class)));
        long id = s.enqueue("note", new Note("hi"));
        assertThat(queryLong("SELECT count(*) FROM \"" + custom + "\".q_jobs WHERE id = ?", id)).isEqualTo(1);
        execute("DROP SCHEMA \"" + custom + "\" CASCADE");
    }

    // ------------------------------------------------------------ rows already in the table

    private long insertRaw(String kind, String argsJson, int maxAttempts) throws Exception {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + jobsTable()
                     + " (queue, kind, args, max_attempts) VALUES ('default', ?, ?::jsonb, ?) RETURNING id")) {
            ps.setString(1, kind);
            ps.setString(2, argsJson);
            ps.setInt(3, maxAttempts);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** One slot, so a dead worker loop or a leaked slot would stop the healthy jobs too. */
    private Skipjack singleSlotWorker() {
        return client(builder().queue("default", 1)
                .handler(JobKind.of("payment", Payment.class), job -> Outcome.complete())
                .handler(JobKind.of("note", Note.class), job -> Outcome.complete()));
    }

    private void assertHealthyJobsComplete(Skipjack s) {
        long before = s.enqueue("note", new Note("before"), EnqueueOptions.defaults().withPriority(0));
        long after = s.enqueue("note", new Note("after"), EnqueueOptions.defaults().withPriority(100));
        await("healthy jobs completed", WAIT, () -> JobRow.load(dataSource, schema, before).state().equals("completed")
                && JobRow.load(dataSource, schema, after).state().equals("completed"));
    }

    private JobRow awaitRow(long id, String state) {
        await("job " + id + " to be " + state, WAIT, () -> JobRow.load(dataSource, schema, id).state().equals(state));
        return JobRow.load(dataSource, schema, id);
    }

    @Test
    void rowWithUnknownKindIsFailedAndDiscardedOnItsLastAttempt() throws Exception {
        Skipjack s = singleSlotWorker();
        long ghost = insertRaw("ghost-kind", "{}", 1);
        s.start();
        assertHealthyJobsComplete(s);

        JobRow r = awaitRow(ghost, "discarded");
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.finishedAt()).isNotNull();
        assertThat(r.errors()).hasSize(1);
        assertThat(r.errors().get(0).errorClass()).isEqualTo("UnknownKind");
        assertThat(r.errors().get(0).message()).contains("ghost-kind");
    }

    @Test
    void jobOfAKindThisClientOnlyDeclaresIsLeftForTheServiceThatHandlesIt() throws Exception {
        Skipjack s = client(builder().queue("default", 1).kind(JobKind.of("elsewhere", Note.class))
                .handler(JobKind.of("note", Note.class), job -> Outcome.complete()));
        long id = s.enqueue("elsewhere", new Note("x"), EnqueueOptions.defaults().withMaxAttempts(1).withPriority(0));
        s.start();
        // Healthy jobs enqueued after it, at a lower priority, run; the declared-only job is not claimed.
        assertHealthyJobsComplete(s);

        JobRow r = JobRow.load(dataSource, schema, id);
        assertThat(r.state()).isEqualTo("available");
        assertThat(r.attempt()).isZero();
        assertThat(r.errors()).isEmpty();
    }

    @Test
    void rowWithUnknownKindAndAttemptsLeftIsRetriedNotDiscarded() throws Exception {
        Skipjack s = singleSlotWorker();
        long ghost = insertRaw("ghost-kind", "{}", 5);
        s.start();
        assertHealthyJobsComplete(s);

        await("first failure recorded", WAIT, () -> !JobRow.load(dataSource, schema, ghost).errors().isEmpty());
        JobRow r = JobRow.load(dataSource, schema, ghost);
        assertThat(r.state()).isIn("retryable", "available", "running");
        assertThat(r.errors().get(0).errorClass()).isEqualTo("UnknownKind");
    }

    @Test
    void rowWithArgsOfTheWrongTypeIsDiscardedAsInvalidArgs() throws Exception {
        Skipjack s = singleSlotWorker();
        long bad = insertRaw("payment", "{\"cents\": \"a lot\", \"currency\": \"EUR\"}", 25);
        s.start();
        assertHealthyJobsComplete(s);

        JobRow r = awaitRow(bad, "discarded");
        // Discarded at once: retrying cannot make the stored args readable.
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.errors()).hasSize(1);
        assertThat(r.errors().get(0).errorClass()).isEqualTo("InvalidArgs");
        assertThat(r.errors().get(0).message()).contains("Payment");
    }

    @Test
    void rowWithArgsThatAreNotAnObjectIsDiscardedAsInvalidArgs() throws Exception {
        Skipjack s = singleSlotWorker();
        long array = insertRaw("payment", "[1, 2, 3]", 25);
        long string = insertRaw("payment", "\"cents\"", 25);
        s.start();
        assertHealthyJobsComplete(s);

        assertThat(awaitRow(array, "discarded").errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("InvalidArgs");
        assertThat(awaitRow(string, "discarded").errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("InvalidArgs");
    }

    @Test
    void rowWithJsonNullArgsIsDiscardedAsInvalidArgs() throws Exception {
        java.util.concurrent.atomic.AtomicInteger handlerCalls = new java.util.concurrent.atomic.AtomicInteger();
        Skipjack s = client(builder().queue("default", 1)
                .handler(JobKind.of("payment", Payment.class), job -> {
                    handlerCalls.incrementAndGet();
                    return Outcome.complete();
                })
                .handler(JobKind.of("note", Note.class), job -> Outcome.complete()));
        long nul = insertRaw("payment", "null", 25);
        s.start();
        assertHealthyJobsComplete(s);

        JobRow r = awaitRow(nul, "discarded");
        assertThat(r.errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("InvalidArgs");
        assertThat(handlerCalls.get()).as("the handler never sees null args").isZero();
    }

    @Test
    void badRowsOfATransactionalKindAreDiscardedToo() throws Exception {
        Skipjack s = client(builder().queue("default", 1)
                .transactionalHandler(JobKind.of("payment", Payment.class), (job, tx) -> Outcome.complete())
                .handler(JobKind.of("note", Note.class), job -> Outcome.complete()));
        long bad = insertRaw("payment", "{\"cents\": \"a lot\"}", 25);
        long good = s.enqueue("payment", new Payment(5, "EUR"));
        s.start();
        assertHealthyJobsComplete(s);

        assertThat(awaitRow(bad, "discarded").errors()).extracting(JobRow.ErrorEntry::errorClass).containsExactly("InvalidArgs");
        awaitRow(good, "completed");
    }
}
