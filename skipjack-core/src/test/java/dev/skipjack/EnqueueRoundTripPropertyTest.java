package dev.skipjack;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.support.TestBackend;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterContainer;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Issue 14, property-based: any args and options are either accepted and read back exactly (args,
 * queue, priority, tags, metadata), or refused before any SQL with a specific exception, never a
 * database error. Which one is decided here without Skipjack's code: a string holding U+0000 or a
 * lone UTF-16 surrogate anywhere is refused; args over the size limit are refused as too large;
 * everything else is accepted. Numbers compare by value: PostgreSQL's jsonb keeps {@code 1.0E10}
 * as {@code 10000000000}.
 *
 * <p>Named {@code ...Test} so surefire's default includes pick it up; jqwik runs it as a second
 * JUnit Platform engine beside Jupiter.
 */
class EnqueueRoundTripPropertyTest {

    private static final int MAX_ARGS_BYTES = 4096;
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
    private static final Map<TestBackend, Skipjack> CLIENTS = new ConcurrentHashMap<>();
    private static final List<HikariDataSource> OWNED = new ArrayList<>();

    record Job(Map<String, Object> args, String queue, int priority, List<String> tags, Map<String, Object> metadata) {
    }

    @Property(tries = 200)
    void onPostgresql(@ForAll("jobs") Job job) throws Exception {
        check(TestBackend.POSTGRESQL, job);
    }

    @Property(tries = 200)
    void onSqlite(@ForAll("jobs") Job job) throws Exception {
        check(TestBackend.SQLITE, job);
    }

    @Property(tries = 60)
    void onMariadb(@ForAll("jobs") Job job) throws Exception {
        check(TestBackend.MARIADB, job);
    }

    @AfterContainer
    static void close() {
        CLIENTS.clear();
        OWNED.forEach(HikariDataSource::close);
    }

    private static Skipjack client(TestBackend backend) {
        return CLIENTS.computeIfAbsent(backend, b -> {
            HikariDataSource ds = b.testDataSource();
            if (b.ownsTestDataSource()) {
                synchronized (OWNED) {
                    OWNED.add(ds);
                }
            }
            Skipjack s = Skipjack.builder(ds).schema(b.freshSchema("RoundTrip"))
                    .kind(JobKind.of("any", Map.class)).maxArgsBytes(MAX_ARGS_BYTES).build();
            s.migrate();
            return s;
        });
    }

    private void check(TestBackend backend, Job job) throws Exception {
        if (!TestBackend.available().contains(backend)) {
            return; // narrowed away by -Dskipjack.test.backends
        }
        boolean badArgs = holdsRefused(job.args());
        boolean tooLarge = JSON.writeValueAsString(job.args()).getBytes(StandardCharsets.UTF_8).length > MAX_ARGS_BYTES;
        boolean badOption = !Limits.QUEUE_NAME.matcher(job.queue()).matches() || job.priority() < 0 || job.priority() > Limits.MAX_PRIORITY
                || job.tags().stream().anyMatch(t -> !Limits.TAG.matcher(t).matches())
                || holdsRefused(job.metadata())
                || JSON.writeValueAsString(job.metadata()).getBytes(StandardCharsets.UTF_8).length > Limits.MAX_METADATA_BYTES;
        Skipjack s = client(backend);
        long id;
        try {
            EnqueueOptions options = EnqueueOptions.defaults().withQueue(job.queue()).withPriority(job.priority())
                    .withTags(job.tags().toArray(String[]::new)).withMetadata(job.metadata());
            id = s.enqueue("any", job.args(), options);
        } catch (ArgsTooLargeException e) {
            Statistics.collect("refused: too large");
            assertThat(tooLarge).as("refused as too large: %s", e.getMessage()).isTrue();
            return;
        } catch (InvalidArgsException e) {
            Statistics.collect("refused: invalid args");
            assertThat(badArgs).as("refused as invalid args: %s", e.getMessage()).isTrue();
            assertThat(e.getMessage()).contains("$");
            return;
        } catch (InvalidOptionException e) {
            Statistics.collect("refused: invalid option");
            assertThat(badOption).as("refused as invalid option: %s", e.getMessage()).isTrue();
            return;
        } catch (SkipjackException e) {
            fail("neither accepted nor refused before SQL: " + e, e);
            return;
        }
        Statistics.collect("accepted");
        assertThat(badArgs || tooLarge || badOption).as("accepted").isFalse();
        JobInfo back = s.find(id).orElseThrow();
        assertSameJson(JSON.readTree(back.argsJson()), JSON.valueToTree(job.args()), "$");
        assertThat(back.queue()).isEqualTo(job.queue());
        assertThat(back.priority()).isEqualTo(job.priority());
        assertThat(back.tags()).containsExactlyInAnyOrderElementsOf(job.tags().stream().distinct().toList());
        assertSameJson(JSON.readTree(back.metadataJson()), JSON.valueToTree(job.metadata()), "$");
    }

    /** Equal JSON, numbers by value. */
    private static void assertSameJson(JsonNode actual, JsonNode expected, String path) {
        if (expected.isNumber()) {
            assertThat(actual.isNumber()).as(path).isTrue();
            assertThat(new BigDecimal(actual.asText()).compareTo(new BigDecimal(expected.asText()))).as(path + " " + actual + " vs " + expected).isZero();
        } else if (expected.isObject()) {
            assertThat(actual.isObject()).as(path).isTrue();
            assertThat(actual.size()).as(path).isEqualTo(expected.size());
            for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                assertThat(actual.has(e.getKey())).as(path + "." + e.getKey()).isTrue();
                assertSameJson(actual.get(e.getKey()), e.getValue(), path + "." + e.getKey());
            }
        } else if (expected.isArray()) {
            assertThat(actual.isArray()).as(path).isTrue();
            assertThat(actual.size()).as(path).isEqualTo(expected.size());
            for (int i = 0; i < expected.size(); i++) {
                assertSameJson(actual.get(i), expected.get(i), path + "[" + i + "]");
            }
        } else {
            assertThat(actual).as(path).isEqualTo(expected);
        }
    }

    private static boolean holdsRefused(Object value) {
        if (value instanceof String s) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == 0) {
                    return true;
                }
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else if (Character.isSurrogate(c)) {
                    return true;
                }
            }
            return false;
        }
        if (value instanceof Map<?, ?> m) {
            return m.entrySet().stream().anyMatch(e -> holdsRefused(e.getKey()) || holdsRefused(e.getValue()));
        }
        if (value instanceof List<?> l) {
            return l.stream().anyMatch(EnqueueRoundTripPropertyTest::holdsRefused);
        }
        return false;
    }

    // ------------------------------------------------------------ generators

    @Provide
    Arbitrary<Job> jobs() {
        Arbitrary<String> queue = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(30, Arbitraries.of("default", "mail", "reports.daily")),
                net.jqwik.api.Tuple.of(1, text()));
        Arbitrary<List<String>> tags = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(40, Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(20)),
                net.jqwik.api.Tuple.of(1, text())).list().ofMaxSize(4);
        Arbitrary<Map<String, Object>> metadata = Arbitraries.maps(key(), scalar()).ofMaxSize(3);
        return net.jqwik.api.Combinators.combine(object(3), queue, Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(30, Arbitraries.integers().between(0, Limits.MAX_PRIORITY)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(-1, Limits.MAX_PRIORITY + 1))), tags, metadata)
                .as(Job::new);
    }

    /** Strings as users send them: mostly plain, often with emoji, control chars, NUL and lone surrogates; sometimes long. */
    private static Arbitrary<String> text() {
        Arbitrary<String> plain = Arbitraries.strings().ascii().ofMaxLength(30);
        Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(12);
        Arbitrary<String> tricky = Arbitraries.strings()
                .withChars('\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\uFEFF', '\uFFFF', 'a', '"', '\\', '\uD800', '\uDFFF')
                .ofMaxLength(8);
        Arbitrary<String> emoji = Arbitraries.of("\uD83D\uDE00", "\uD83C\uDDE9\uD83C\uDDEA", "\uD83D\uDC69\u200D\uD83D\uDCBB", "\u00e9", "\u4e2d")
                .list().ofMaxSize(5).map(l -> String.join("", l));
        Arbitrary<String> longText = Arbitraries.strings().alpha().ofMinLength(500).ofMaxLength(5000);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, plain), net.jqwik.api.Tuple.of(2, any), net.jqwik.api.Tuple.of(2, tricky),
                net.jqwik.api.Tuple.of(2, emoji), net.jqwik.api.Tuple.of(1, longText));
    }

    private static Arbitrary<String> key() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(10)),
                net.jqwik.api.Tuple.of(1, text()));
    }

    private static Arbitrary<Object> scalar() {
        return Arbitraries.oneOf(
                text().map(o -> (Object) o),
                Arbitraries.integers().map(o -> (Object) o),
                Arbitraries.longs().map(o -> (Object) o),
                Arbitraries.doubles().map(o -> (Object) o),
                Arbitraries.bigDecimals().ofScale(3).map(o -> (Object) o),
                Arbitraries.of(true, false).map(o -> (Object) o),
                Arbitraries.just(null));
    }

    private static Arbitrary<Map<String, Object>> object(int depth) {
        Arbitrary<Object> value = depth == 0 ? scalar() : Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, scalar()),
                net.jqwik.api.Tuple.of(1, Arbitraries.lazy(() -> object(depth - 1)).map(o -> (Object) o)),
                net.jqwik.api.Tuple.of(1, Arbitraries.lazy(() -> value(depth - 1)).list().ofMaxSize(4).map(o -> (Object) o)));
        return Arbitraries.maps(key(), value).ofMaxSize(5).map(LinkedHashMap::new);
    }

    private static Arbitrary<Object> value(int depth) {
        return depth == 0 ? scalar() : Arbitraries.oneOf(scalar(), object(depth).map(o -> (Object) o));
    }
}
