package dev.skipjack.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.ShardedSkipjack;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code skipjack stats --url A --shard B --shard C}: an operator of a {@link ShardedSkipjack}
 * sees one table summed over its databases, and each database's total. The jobs are put in by a
 * real sharded client on three PostgreSQL databases.
 */
class ShardStatsTest {

    record Ping(int n) {
    }

    private static final JobKind<Ping> PING = JobKind.of("ping", Ping.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<HikariDataSource> databases = new ArrayList<>();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @AfterEach
    void close() {
        databases.forEach(HikariDataSource::close);
    }

    @Test
    void statsSumsTheShardsAndShowsEachDatabasesTotal() throws Exception {
        ShardedSkipjack.Builder builder = ShardedSkipjack.builder(b -> b.kind(PING));
        for (String name : List.of("a", "b", "c")) {
            HikariDataSource ds = TestBackend.POSTGRESQL.newDatabase("cli_shard_" + ProcessHandle.current().pid() + "_" + name, 4);
            databases.add(ds);
            builder.shard(name, ds);
        }
        try (ShardedSkipjack sharded = builder.pinQueue("reports", "c").build()) {
            sharded.migrate();
            sharded.enqueueAll(IntStream.range(0, 30).mapToObj(i -> JobRequest.of(PING, new Ping(i))).toList());
            sharded.enqueue(PING, new Ping(99), EnqueueOptions.defaults().withQueue("reports"));
        }

        int exit = CliInProcess.execute(out, err, List.of("stats", "--json", "--url", url(0),
                "--shard", url(1), "--shard", url(2)));

        assertThat(exit).as("exit code; output:%n%s%n%s", out, err).isZero();
        JsonNode stats = JSON.readTree(out.toString());
        assertThat(stats.at("/totals/available").asLong()).as("summed over the shards").isEqualTo(31);
        assertThat(stats.get("shards")).hasSize(3);
        assertThat(stats.get("shards").get(2).get("jobs").asLong()).as("10 in turn and the pinned one").isEqualTo(11);
        Map<String, Long> perQueue = new java.util.TreeMap<>();
        stats.get("queues").forEach(q -> perQueue.put(q.get("name").asText(), q.at("/counts/available").asLong()));
        assertThat(perQueue).containsEntry("default", 30L).containsEntry("reports", 1L);

        StringWriter text = new StringWriter();
        assertThat(CliInProcess.execute(text, err, List.of("stats", "--url", url(0), "--shard", url(1)))).isZero();
        assertThat(text.toString()).contains("summed over 2 databases").contains("10 jobs in");
    }

    private String url(int i) {
        return databases.get(i).getJdbcUrl();
    }
}
