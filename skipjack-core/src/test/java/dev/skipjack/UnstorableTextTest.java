package dev.skipjack;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14: a string that some backend would refuse (U+0000: PostgreSQL's jsonb) or silently
 * change (a lone UTF-16 surrogate: stored as '?' by every driver) is refused before any SQL on
 * every backend, with the JSON path of the string in the message; everything else is stored as
 * given.
 */
class UnstorableTextTest extends EveryBackendTest {

    record Line(String text) {
    }

    record Order(String customer, List<Line> lines) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private Skipjack client() {
        return client(builder().kind(JobKind.of("order", Order.class)).kind(JobKind.of("map", Map.class)));
    }

    private long jobCount() {
        return queryLong("SELECT count(*) FROM " + jobsTable());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"nul\u0000", "\uD800high", "low\uDC00", "ends in high \uD83D", "\uDE00\uD83D reversed pair"})
    void refusedStringInTypedArgsNamesItsPath(String bad) {
        Skipjack s = client();
        Order order = new Order("ada", List.of(new Line("ok"), new Line("fine"), new Line(bad)));
        assertThatThrownBy(() -> s.enqueue("order", order))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("$.lines[2].text")
                .hasMessageContaining("order");
        assertThat(jobCount()).isZero();
    }

    @Test
    void refusedFieldNameIsNamedToo() {
        Skipjack s = client();
        assertThatThrownBy(() -> s.enqueue("map", Map.of("customer", Map.of("na\u0000me", "ada"))))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("$.customer['na\\u0000me']")
                .hasMessageContaining("field name");
        assertThat(jobCount()).isZero();
    }

    @Test
    void refusedStringAtTopLevelIsAtTheRoot() {
        Skipjack s = client(builder().kind(JobKind.of("text", String.class)));
        assertThatThrownBy(() -> s.enqueue("text", "a\u0000b"))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("$ contains U+0000");
    }

    @Test
    void escapedBackslashBeforeU0000IsNotAFalseAlarm() throws Exception {
        Skipjack s = client();
        // The JSON text holds \\u0000: an escaped backslash and the letters u0000, not U+0000.
        Map<String, Object> args = Map.of("path", "C:\\u0000\\dir");
        long id = s.enqueue("map", args);
        assertThat(JSON.readValue(s.find(id).orElseThrow().argsJson(), Map.class)).isEqualTo(args);
    }

    @Test
    void surrogatesWrittenAsEscapesAreCheckedToo() throws Exception {
        // An application's mapper may write every non-ASCII char as an escape (\uD800).
        ObjectMapper escaping = com.fasterxml.jackson.databind.json.JsonMapper.builder()
                .enable(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII).build();
        Skipjack s = client(builder().objectMapper(escaping).kind(JobKind.of("order", Order.class)));
        assertThatThrownBy(() -> s.enqueue("order", new Order("ada\uD800", List.of())))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("$.customer");
        Order emoji = new Order("ada \uD83D\uDE00", List.of(new Line("\u00e9")));
        long id = s.enqueue("order", emoji);
        assertThat(JSON.readValue(s.find(id).orElseThrow().argsJson(), Order.class)).isEqualTo(emoji);
    }

    @Test
    void everythingElseIsStoredAsGiven() throws Exception {
        Skipjack s = client();
        Map<String, Object> args = Map.of(
                "emoji", "a\uD83D\uDE00b",
                "controls", "\u0001\u001f\u007f\u0085",
                "nonCharacters", "\uFFFE\uFFFF",
                "bom", "\uFEFFtext",
                "separators", "\u2028\u2029",
                "quotes", "\"'\\/",
                "\uD83D\uDE00 key", "value");
        long id = s.enqueue("map", args);
        assertThat(JSON.readValue(s.find(id).orElseThrow().argsJson(), Map.class)).isEqualTo(args);
    }

    @Test
    void refusedStringInMetadataIsAnInvalidOption() {
        Skipjack s = client();
        EnqueueOptions options = EnqueueOptions.defaults().withMetadata(Map.of("source", List.of("web", "\uD800")));
        assertThatThrownBy(() -> s.enqueue("order", new Order("ada", List.of()), options))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("metadata")
                .hasMessageContaining("$.source[1]");
        assertThat(jobCount()).isZero();
    }

    @Test
    void oneRefusedJobInABatchInsertsNone() {
        Skipjack s = client();
        assertThatThrownBy(() -> s.enqueueAll(List.of(
                JobRequest.of("order", new Order("ada", List.of())),
                JobRequest.of("order", new Order("bob\u0000", List.of())))))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("$.customer");
        assertThat(jobCount()).isZero();
    }

    @Test
    void refusedOnTheCallersConnectionBeforeAnySql() throws Exception {
        Skipjack s = client();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> s.enqueue(c, JobKind.of("order", Order.class), new Order("\u0000", List.of())))
                    .isInstanceOf(InvalidArgsException.class)
                    .hasMessageContaining("$.customer");
            c.rollback();
        }
        assertThat(jobCount()).isZero();
    }

    @Test
    void cronScheduleArgsAreCheckedWhenScheduled() {
        Skipjack s = client();
        CronSchedule schedule = CronSchedule.of("nightly", "0 3 * * *", JobKind.of("order", Order.class),
                new Order("ada", List.of(new Line("\uDBFF"))));
        assertThatThrownBy(() -> s.schedule(schedule))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessageContaining("$.lines[0].text");
        assertThat(queryLong("SELECT count(*) FROM " + table("skipjack_cron_schedules"))).isZero();
    }
}
