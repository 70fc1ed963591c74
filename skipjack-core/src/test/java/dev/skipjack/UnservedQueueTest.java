package dev.skipjack;

import dev.skipjack.internal.node.UnservedQueueWatch;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.LogCapture;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rows no one will run are visible: a queue with jobs waiting past a threshold that no running
 * node serves is named (the maintenance leader's warning, {@link SkipjackAdmin#queues()}'s
 * {@code servedBy}), and stops being named once a node serves it.
 */
class UnservedQueueTest extends EveryBackendTest {

    static final JobKind<Map> WORK = JobKind.of("work", Map.class);
    static final Duration WAIT = Duration.ofSeconds(20);

    private UnservedQueueWatch watch(Duration threshold) {
        SqlStatements sql = Dialect.of(backend.backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        return new UnservedQueueWatch(dataSource, sql, threshold);
    }

    @Test
    void aQueueWithOldJobsThatNoRunningNodeServesIsNamedUntilOneServesIt() throws Exception {
        Skipjack mailNode = client(builder().workerId("mail-node").queue("mail", 1).handler(WORK, job -> Outcome.complete()));
        mailNode.start();
        Instant longAgo = Instant.now().minus(Duration.ofMinutes(10));
        for (int i = 0; i < 3; i++) {
            mailNode.enqueue(WORK, Map.of("i", i), EnqueueOptions.defaults().withQueue("reports").withRunAt(longAgo));
        }
        mailNode.enqueue(WORK, Map.of(), EnqueueOptions.defaults().withQueue("fresh"));
        SkipjackAdmin admin = mailNode.admin();
        await("mail-node registered", WAIT, () -> admin.nodes().size() == 1);

        List<UnservedQueueWatch.Unserved> unserved = watch(Duration.ofMinutes(5)).check();
        assertThat(unserved).extracting(UnservedQueueWatch.Unserved::queue)
                .as("'fresh' has a job too, but it has not waited past the threshold").containsExactly("reports");
        assertThat(unserved.get(0).jobs()).isEqualTo(3);
        assertThat(unserved.get(0).servedQueues()).containsExactly("mail");

        Map<String, QueueInfo> queues = new java.util.HashMap<>();
        admin.queues().forEach(q -> queues.put(q.name(), q));
        assertThat(queues.get("reports").servedBy()).isEmpty();
        assertThat(queues.get("reports").served()).isFalse();
        assertThat(queues.get("mail").servedBy()).containsExactly("mail-node");

        Skipjack reportsNode = client(builder().workerId("reports-node").queue("reports", 2).handler(WORK, job -> Outcome.complete()));
        reportsNode.start();
        await("reports-node registered", WAIT, () -> admin.nodes().size() == 2);
        assertThat(watch(Duration.ofMinutes(5)).check()).as("served now").isEmpty();
        await("the reports jobs to run", WAIT, () -> admin.queues().stream()
                .filter(q -> q.name().equals("reports")).findFirst().orElseThrow().count(JobState.COMPLETED) == 3);
    }

    /** Schema version 13: the database refuses what {@code enqueue} would, so plain SQL cannot strand a job. */
    @Test
    void aRowInsertedWithPlainSqlIntoAQueueNameSkipjackRefusesIsRefusedByTheDatabase() {
        client(builder()); // migrates
        for (String bad : List.of("Default", "mail queue", "-mail", "mail!", "Mail")) {
            assertThatThrownBy(() -> execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt)"
                    + " VALUES ('" + bad + "', 'work', '{}', 'available', 0)")).as(bad).isNotNull();
        }
        for (String good : List.of("default", "mail.v2-eu_1", "0")) {
            execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt) VALUES ('" + good + "', 'work', '{}', 'available', 0)");
        }
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).as("only the good names were stored").isEqualTo(3);
        long id = queryLong("SELECT min(id) FROM " + jobsTable());
        assertThatThrownBy(() -> execute("UPDATE " + jobsTable() + " SET queue = 'Default' WHERE id = " + id))
                .as("an update to a bad name").isNotNull();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE queue = 'default'")).isEqualTo(1);
    }

    /** A job enqueued without a queue goes to 'default': a node running handlers that does not serve it says so at start. */
    @Test
    void aNodeRunningHandlersButNotServingTheDefaultQueueWarnsAtStart() {
        assertThat(warningsAtStart(builder().workerId("mail-only").queue("mail", 1).handler(WORK, job -> Outcome.complete())))
                .singleElement().asString()
                .contains("WARN")
                .contains("kinds [work]")
                .contains("does not serve queue 'default'")
                .contains("[mail]");
        assertThat(warningsAtStart(builder().queue("default", 1).queue("mail", 1).handler(WORK, job -> Outcome.complete())))
                .as("serves 'default'").isEmpty();
        assertThat(warningsAtStart(builder().queue("mail", 1).kind(WORK)))
                .as("no handler here: nothing of its own is stranded").isEmpty();
    }

    private List<String> warningsAtStart(Skipjack.Builder builder) {
        Skipjack s = client(builder);
        try (LogCapture log = new LogCapture()) {
            s.start();
            s.stop(Duration.ofSeconds(5));
            return log.linesContaining("does not serve queue");
        }
    }
}
