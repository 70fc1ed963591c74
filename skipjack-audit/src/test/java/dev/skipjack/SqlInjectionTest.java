package dev.skipjack;

import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.audit.AuditTables;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * RELIABILITY.md, Security: SQL injection through every string that reaches SQL. Identifiers
 * (schema, table prefix, queue names, kinds) are rejected by their validators; values (args,
 * error messages, worker ids) are bound and come back verbatim. After every attempt a canary table
 * that each payload tries to drop or change is still there, unchanged. The query API's search
 * filters (used by the CLI and the dashboard) are covered too: names are validated, args filters
 * are bound.
 */
class SqlInjectionTest extends DatabaseTest {

    public record Text(String s) {
    }

    private String canary;
    private List<String> payloads;

    @BeforeEach
    void canary() {
        client(builder());
        canary = "\"" + schema + "\".canary";
        execute("CREATE TABLE " + canary + " (v int)");
        execute("INSERT INTO " + canary + " VALUES (1)");
        payloads = List.of(
                "x'; DROP TABLE " + canary + "; --",
                "x\"; DROP TABLE " + canary + "; --",
                "'); UPDATE " + canary + " SET v = 2; --",
                "$$; DROP TABLE " + canary + "; $$",
                "x' OR '1'='1",
                "default; DROP TABLE " + canary,
                "a\\'; DROP TABLE " + canary + "; --",
                "a:b'||(SELECT pg_sleep(0))||'",
                schema + "\".canary; DROP TABLE " + canary + "; --");
    }

    @Test
    void identifiersCarryingSqlAreRejectedBeforeAnySql() {
        for (String p : payloads) {
            assertThatThrownBy(() -> Skipjack.builder(dataSource).schema(p)).as(p).isInstanceOf(InvalidIdentifierException.class);
            assertThatThrownBy(() -> Skipjack.builder(dataSource).tablePrefix(p)).as(p).isInstanceOf(InvalidIdentifierException.class);
            assertThatThrownBy(() -> Skipjack.migrationSql(p, "skipjack_")).as(p).isInstanceOf(InvalidIdentifierException.class);
            assertThatThrownBy(() -> new AuditTables(Backend.POSTGRESQL, new TableNames(schema, p))).as(p).isInstanceOf(InvalidIdentifierException.class);
            assertThatThrownBy(() -> EnqueueOptions.defaults().withQueue(p)).as(p).isInstanceOf(InvalidOptionException.class);
            assertThatThrownBy(() -> QueueOptions.of(p, 1)).as(p).isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "queue(name)");
            assertThatThrownBy(() -> JobKind.of(p, Text.class)).as(p).isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "kind");
            Skipjack producer = builder().kind(JobKind.of("echo", Text.class)).build();
            assertThatThrownBy(() -> producer.enqueue(p, new Text("x"))).as(p).isInstanceOf(InvalidJobException.class);
            assertCanaryUntouched();
        }
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).as("jobs inserted by rejected calls").isZero();
    }

    @Test
    void valuesCarryingSqlAreBoundAndComeBackVerbatim() {
        String hostileWorker = "w'; DROP TABLE " + canary + "; --";
        Skipjack s = client(builder().workerId(hostileWorker).queue("default", 2).handler(JobKind.of("echo", Text.class),
                KindOptions.defaults().withMaxAttempts(1), job -> {
                    throw new IllegalStateException(job.args().s());
                }));
        List<JobRequest> requests = new ArrayList<>();
        for (String p : payloads) {
            requests.add(JobRequest.of("echo", new Text(p)));
        }
        List<Long> ids = s.enqueueAll(requests);
        s.start();
        for (int i = 0; i < ids.size(); i++) {
            String payload = payloads.get(i);
            JobInfo job = awaitState(s, ids.get(i), JobState.DISCARDED, Duration.ofSeconds(30));
            assertThat(job.argsJson()).contains(jsonEscaped(payload));
            assertThat(job.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains(payload));
            assertThat(job.claimedBy()).isEqualTo(hostileWorker);
        }
        assertCanaryUntouched();
    }

    @Test
    void searchFiltersCarryingSqlAreRejectedOrBound() {
        Skipjack s = client(builder().kind(JobKind.of("echo", Text.class)));
        long plain = s.enqueue("echo", new Text("plain"));
        List<Long> hostile = new ArrayList<>();
        for (String p : payloads) {
            assertThatThrownBy(() -> JobQuery.all().queue(p)).as(p).isInstanceOf(InvalidOptionException.class);
            assertThatThrownBy(() -> JobQuery.all().kind(p)).as(p).isInstanceOf(InvalidOptionException.class);
            assertThatThrownBy(() -> JobQuery.all().argsContain(p)).as(p).isInstanceOf(InvalidOptionException.class);
            hostile.add(s.enqueue("echo", new Text(p)));
        }
        for (int i = 0; i < payloads.size(); i++) {
            // As a JSON value the payload is bound: it matches exactly the job that carries it.
            String filter = s.admin().jobs(JobQuery.all().argsContain("{\"s\": " + jsonString(payloads.get(i)) + "}"))
                    .jobs().stream().map(JobInfo::id).toList().toString();
            assertThat(filter).as(payloads.get(i)).isEqualTo(List.of(hostile.get(i)).toString());
        }
        assertThat(s.admin().jobs(JobQuery.all().argsContain("{\"s\": \"plain\"}")).jobs())
                .extracting(JobInfo::id).containsExactly(plain);
        assertCanaryUntouched();
    }

    private static String jsonString(String s) {
        return "\"" + jsonEscaped(s) + "\"";
    }

    private void assertCanaryUntouched() {
        assertThat(queryLong("SELECT count(*) FROM " + canary + " WHERE v = 1")).as("canary rows").isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM " + canary)).isEqualTo(1);
    }

    private static String jsonEscaped(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
