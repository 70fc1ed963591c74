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
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A batch of outcomes too large for the server still gets written: MySQL and MariaDB refuse a
 * statement over max_allowed_packet (16 MB by default; 1 MB here), and 2,000 outcomes with large
 * outputs exceed it. The completer halves a batch that keeps failing until the server takes it.
 * Before, it retried the same batch, grown by every retry, forever, and its jobs stayed running
 * with leases their node kept extending.
 */
class OversizedBatchTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final int JOBS = 40;
    /** About 60 KB of output per job: 40 of them are 2.4 MB, over a 1 MB packet. */
    private static final String OUTPUT = "\"" + "x".repeat(60_000) + "\"";

    @Test
    void aBatchOverTheServersPacketLimitIsWrittenInParts() throws Exception {
        assumeTrue(backend().backend() == Backend.MARIADB || backend().backend() == Backend.MYSQL,
                "max_allowed_packet is MySQL's and MariaDB's");
        Skipjack client = client(builder().kind(JobKind.of("work", Args.class)));
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            requests.add(JobRequest.of("work", new Args(i)));
        }
        client.enqueueAll(requests);
        SqlStatements sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        List<ClaimedJob> claimed;
        try (Connection c = dataSource.getConnection()) {
            claimed = new JobClaimer(sql, "w1", Duration.ofMinutes(5)).claim(c, "default", Set.of(), JOBS);
        }
        assertThat(claimed).hasSize(JOBS);

        long packetBefore = queryLong("SELECT @@GLOBAL.max_allowed_packet");
        execute("SET GLOBAL max_allowed_packet = 1048576");
        // Connections read the server's limit when they connect: a new pool, opened after the change.
        try (HikariDataSource small = backend().newDataSource(2)) {
            List<Long> acknowledged = new CopyOnWriteArrayList<>();
            BatchCompleter<Long> completer = new BatchCompleter<>(small, new CompletionWriter(sql), acknowledged::add,
                    (completion, problem) -> completion, "w1", 1);
            // Queued before the writer starts, so its first batch holds all of them.
            for (ClaimedJob job : claimed) {
                completer.submit(job.id(), Completion.completed(job.id(), job.attempt()).withOutput(OUTPUT));
            }
            completer.start();
            try {
                await("every outcome written", Duration.ofSeconds(60), () -> acknowledged.size() == JOBS);
            } finally {
                completer.stop(Duration.ofSeconds(5));
            }
        } finally {
            execute("SET GLOBAL max_allowed_packet = " + packetBefore);
        }
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'"
                + " AND length(output) > 60000")).isEqualTo(JOBS);
    }
}
