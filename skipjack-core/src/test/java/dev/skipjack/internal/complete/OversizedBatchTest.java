package dev.skipjack.internal.complete;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.Backend;
import dev.skipjack.DatabaseClock;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.StatementText;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.LogCapture;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Batches of outcomes with large outputs still get written: MySQL and MariaDB refuse a statement
 * over max_allowed_packet (16 MB by default on MariaDB; lowered here), and 2,000 outcomes with
 * large outputs exceed it. A batch carries at most two million characters of outputs and errors,
 * so at the servers' defaults no write fails for its size; under a lower limit the completer halves
 * a batch that keeps failing until the server takes it, and keeps that size for later batches.
 * Before, it retried the same batch, grown by every retry, forever, and its jobs stayed running
 * with leases their node kept extending; then every later batch failed twice before its halves
 * went through.
 */
class OversizedBatchTest extends EveryBackendTest {

    record Args(int n) {
    }

    /** About 60 KB of output per job: 40 of them are 2.4 MB, over a 1 MB packet. */
    private static final String OUTPUT = "\"" + "x".repeat(60_000) + "\"";
    private static final String FAILED_WRITE = "job acknowledgements failed";

    private SqlStatements sql;

    /** Enqueues and claims {@code count} jobs, as a worker's fetcher would. */
    private void assumePacketLimit() {
        assumeTrue(backend().backend() == Backend.MARIADB || backend().backend() == Backend.MYSQL,
                "max_allowed_packet is MySQL's and MariaDB's");
    }

    private List<ClaimedJob> claim(int count) throws Exception {
        Skipjack client = client(builder().kind(JobKind.of("work", Args.class)));
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            requests.add(JobRequest.of("work", new Args(i)));
        }
        client.enqueueAll(requests);
        sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        try (Connection c = dataSource.getConnection()) {
            List<ClaimedJob> claimed = new JobClaimer(sql, "w1", Duration.ofMinutes(5)).claim(c, "default", Set.of(), count);
            assertThat(claimed).hasSize(count);
            return claimed;
        }
    }

    /** Runs {@code rounds} against a server whose max_allowed_packet is {@code packet}, on one completer. */
    private void withPacket(long packet, Rounds rounds) throws Exception {
        long packetBefore = queryLong("SELECT @@GLOBAL.max_allowed_packet");
        execute("SET GLOBAL max_allowed_packet = " + packet);
        // Connections read the server's limit when they connect: a new pool, opened after the change.
        try (HikariDataSource pool = backend().newDataSource(2)) {
            List<Long> acknowledged = new CopyOnWriteArrayList<>();
            BatchCompleter<Long> completer = new BatchCompleter<>(pool, new CompletionWriter(sql), acknowledged::add,
                    (completion, problem) -> completion, "w1", 1);
            try {
                rounds.run(completer, acknowledged);
            } finally {
                completer.stop(Duration.ofSeconds(5));
            }
        } finally {
            execute("SET GLOBAL max_allowed_packet = " + packetBefore);
        }
    }

    @FunctionalInterface
    private interface Rounds {
        void run(BatchCompleter<Long> completer, List<Long> acknowledged) throws Exception;
    }

    private static void submit(BatchCompleter<Long> completer, List<ClaimedJob> jobs) {
        for (ClaimedJob job : jobs) {
            completer.submit(job.id(), Completion.completed(job.id(), job.attempt()).withOutput(OUTPUT));
        }
    }

    private void awaitWritten(List<Long> acknowledged, int count) {
        await("every outcome written", Duration.ofSeconds(60), () -> acknowledged.size() == count);
    }

    private long completedWithOutput() {
        String output = backend().backend() == Backend.POSTGRESQL ? "output::text" : "output";
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed' AND length(" + output
                + ") > 60000");
    }

    @Test
    void aBatchOverTheServersPacketLimitIsWrittenInParts() throws Exception {
        assumePacketLimit();
        List<ClaimedJob> claimed = claim(40);
        withPacket(1_048_576, (completer, acknowledged) -> {
            // Queued before the writer starts, so its first batch holds all of them.
            submit(completer, claimed);
            completer.start();
            awaitWritten(acknowledged, 40);
        });
        assertThat(completedWithOutput()).isEqualTo(40);
    }

    @Test
    void batchesOfLargeOutputsStayUnderAFourMegabytePacketWithoutAFailedWrite() throws Exception {
        assumePacketLimit();
        // 100 outputs of 60 KB are 6 MB: one batch of them all would be refused.
        List<ClaimedJob> claimed = claim(100);
        try (LogCapture log = new LogCapture()) {
            withPacket(4_194_304, (completer, acknowledged) -> {
                submit(completer, claimed);
                completer.start();
                awaitWritten(acknowledged, 100);
            });
            assertThat(log.linesContaining(FAILED_WRITE)).isEmpty();
        }
        assertThat(completedWithOutput()).isEqualTo(100);
    }

    @Test
    void aSizeFoundByHalvingIsKeptForLaterBatches() throws Exception {
        assumePacketLimit();
        List<ClaimedJob> claimed = claim(80);
        try (LogCapture log = new LogCapture()) {
            withPacket(1_048_576, (completer, acknowledged) -> {
                submit(completer, claimed.subList(0, 40));
                completer.start();
                awaitWritten(acknowledged, 40);
                assertThat(log.linesContaining(FAILED_WRITE)).as("the first batch, before halving").isNotEmpty();
                int failedBefore = log.linesContaining(FAILED_WRITE).size();

                submit(completer, claimed.subList(40, 80));
                awaitWritten(acknowledged, 80);
                assertThat(log.linesContaining(FAILED_WRITE)).as("failed writes of the later batches")
                        .hasSize(failedBefore);
            });
        }
        assertThat(completedWithOutput()).isEqualTo(80);
    }

    @Test
    void aBudgetLoweredByFailuresOfAnotherKindGrowsBackAfterCleanWrites() throws Exception {
        List<ClaimedJob> claimed = claim(40 + 2 * BatchCompleter.WRITES_BEFORE_GROWING_BACK);
        // The first batch's acknowledgements fail twice (as a lost connection would fail its
        // writes): the batch is halved, its half goes through, and the budget comes down to it.
        AtomicInteger failuresLeft = new AtomicInteger(2);
        List<Long> acknowledged = new CopyOnWriteArrayList<>();
        BatchCompleter<Long> completer = new BatchCompleter<>(dataSource, new CompletionWriter(sql), id -> {
            if (failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("not written (thrown by the test)");
            }
            acknowledged.add(id);
        }, (completion, problem) -> completion, "w1", 1);
        try {
            submit(completer, claimed.subList(0, 40));
            completer.start();
            awaitWritten(acknowledged, 40);
            long lowered = completer.maxBatchChars();
            assertThat(lowered).as("the budget after the halved batch went through").isLessThan(StatementText.MAX_CHARS);

            // One completion per write, each waited for: that many writes without a failure.
            for (int i = 40; i < claimed.size(); i++) {
                ClaimedJob job = claimed.get(i);
                completer.submit(job.id(), Completion.completed(job.id(), job.attempt()));
                awaitWritten(acknowledged, i + 1);
            }
            assertThat(completer.maxBatchChars()).as("the budget after clean writes")
                    .isGreaterThan(lowered);
        } finally {
            completer.stop(Duration.ofSeconds(5));
        }
        assertThat(completedWithOutput()).isEqualTo(40);
    }
}
