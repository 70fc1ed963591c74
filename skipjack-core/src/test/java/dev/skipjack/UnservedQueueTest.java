package dev.skipjack;

import dev.skipjack.internal.node.UnservedQueueWatch;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

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
}
