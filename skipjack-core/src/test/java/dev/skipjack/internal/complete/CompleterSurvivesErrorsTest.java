package dev.skipjack.internal.complete;

import dev.skipjack.DatabaseClock;
import dev.skipjack.JobKind;
import dev.skipjack.Skipjack;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completer's writer thread outlives an Error thrown while it handles a batch (here the
 * acknowledgement callback's): the batch is written again and acknowledged, and later batches
 * still go through the same thread. Before, the thread ended and its batch was dropped: those
 * jobs stayed running, their leases extended by a node that would never write their outcome.
 */
class CompleterSurvivesErrorsTest extends EveryBackendTest {

    record Args(int n) {
    }

    private BatchCompleter<String> completer;

    @AfterEach
    void stopCompleter() {
        if (completer != null) {
            completer.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void anErrorWhileAcknowledgingDoesNotEndTheWriterNorDropItsBatch() throws Exception {
        Skipjack client = client(builder().kind(JobKind.of("work", Args.class)));
        long first = client.enqueue("work", new Args(1));
        long second = client.enqueue("work", new Args(2));
        SqlStatements sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        List<ClaimedJob> claimed;
        try (Connection c = dataSource.getConnection()) {
            claimed = new JobClaimer(sql, "w1", Duration.ofMinutes(5)).claim(c, "default", Set.of(), 10);
        }
        assertThat(claimed).extracting(ClaimedJob::id).containsExactlyInAnyOrder(first, second);

        List<String> acknowledged = new CopyOnWriteArrayList<>();
        AtomicBoolean failOnce = new AtomicBoolean(true);
        completer = new BatchCompleter<>(dataSource, new CompletionWriter(sql), key -> {
            if (failOnce.getAndSet(false)) {
                throw new AssertionError("a broken acknowledgement callback");
            }
            acknowledged.add(key);
        }, (completion, problem) -> completion, "w1", 1);
        completer.start();

        completer.submit("first", Completion.completed(first, 1));
        await("the first completion acknowledged after the Error", Duration.ofSeconds(20),
                () -> acknowledged.contains("first"));
        completer.submit("second", Completion.completed(second, 1));
        await("the second written by the same, single writer", Duration.ofSeconds(20),
                () -> acknowledged.contains("second"));

        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'")).isEqualTo(2);
        assertThat(acknowledged).containsExactly("first", "second");
    }
}
