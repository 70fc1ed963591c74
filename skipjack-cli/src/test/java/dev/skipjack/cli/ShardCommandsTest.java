package dev.skipjack.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.ShardedSkipjack;
import dev.skipjack.ShardedSkipjack.ShardJobId;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16, item 4: the operator commands with {@code --shard}, over three PostgreSQL databases
 * filled by a real {@link ShardedSkipjack}: {@code jobs list} pages over every shard showing each
 * job's shard, a job named {@code SHARD:ID} is shown and acted on on its shard only, a filter and a
 * queue pause reach every shard, and a bare id or an unknown shard is a usage error saying why.
 * Expected values are read back from each database with plain SQL.
 */
class ShardCommandsTest {

    record Ping(int n) {
    }

    private static final JobKind<Ping> PING = JobKind.of("ping", Ping.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Shard name to database; the first is --url's, named by its database. */
    private final Map<String, HikariDataSource> shards = new LinkedHashMap<>();
    private final List<ShardJobId> jobs = new ArrayList<>();
    private StringWriter out;
    private StringWriter err;

    @BeforeEach
    void threeShardsWithJobs() {
        Map<String, HikariDataSource> databases = TestBackend.POSTGRESQL.newShardDatabases(List.of("first", "b", "c"), 2);
        // --url's shard is named by its database.
        HikariDataSource first = databases.remove("first");
        shards.put(ShardOptions.nameOf(DatabaseUrl.parse(first.getJdbcUrl())), first);
        shards.putAll(databases);
        ShardedSkipjack.Builder builder = ShardedSkipjack.builder(b -> b.kind(PING));
        shards.forEach(builder::shard);
        try (ShardedSkipjack sharded = builder.build()) {
            sharded.migrate();
            for (int i = 0; i < 9; i++) {
                jobs.add(sharded.enqueue(PING, new Ping(i), EnqueueOptions.defaults().withQueue("mail")));
            }
        }
    }

    @AfterEach
    void close() {
        shards.values().forEach(HikariDataSource::close);
    }

    /** Runs {@code skipjack COMMAND... --url first --shard b=... --shard c=...}; returns the exit code. */
    private int run(String... command) {
        out = new StringWriter();
        err = new StringWriter();
        List<String> args = new ArrayList<>(List.of(command));
        List<HikariDataSource> databases = List.copyOf(shards.values());
        args.addAll(List.of("--url", databases.get(0).getJdbcUrl(), "--shard", "b=" + databases.get(1).getJdbcUrl(),
                "--shard", "c=" + databases.get(2).getJdbcUrl()));
        return CliInProcess.execute(out, err, args);
    }

    @Test
    void jobsListPagesOverEveryShardShowingEachJobsShard() throws Exception {
        List<String> listed = new ArrayList<>();
        String cursor = null;
        do {
            int exit = cursor == null ? run("jobs", "list", "--json", "--limit", "4")
                    : run("jobs", "list", "--json", "--limit", "4", "--after", cursor);
            assertThat(exit).as("exit; %s", err).isZero();
            JsonNode page = JSON.readTree(out.toString());
            page.get("jobs").forEach(j -> listed.add(j.get("shard").asText() + ":" + j.get("id").asLong()));
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
        } while (cursor != null);

        assertThat(listed).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(jobs.stream().map(ShardJobId::toString).toList());
        assertThat(run("jobs", "list")).isZero();
        assertThat(out.toString()).startsWith("SHARD").containsPattern("(?m)^b +1 +mail").containsPattern("(?m)^c +1 +mail")
                .containsPattern("(?m)^" + shards.keySet().iterator().next() + " +1 +mail");
    }

    @Test
    void aJobNamedShardColonIdIsShownAndActedOnOnItsShardOnly() throws Exception {
        ShardJobId onB = jobs.get(1);
        assertThat(onB.shard()).isEqualTo("b");

        assertThat(run("jobs", "cancel", onB.toString())).as("exit; %s", err).isZero();

        assertThat(count("b", "id = " + onB.id() + " AND state = 'cancelled'")).isEqualTo(1);
        assertThat(count(null, "state = 'cancelled'")).as("the same id on the other shards untouched").isEqualTo(1);
        assertThat(run("jobs", "show", "--json", onB.toString())).isZero();
        JsonNode shown = JSON.readTree(out.toString());
        assertThat(shown.get("shard").asText()).isEqualTo("b");
        assertThat(shown.get("state").asText()).isEqualTo("cancelled");

        assertThat(run("jobs", "cancel", Long.toString(onB.id()))).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("unique on its shard only").contains("b:" + onB.id());
        assertThat(run("jobs", "show", "z:1")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("no shard named 'z'");
        assertThat(count(null, "state = 'cancelled'")).as("nothing else changed").isEqualTo(1);
    }

    @Test
    void filtersAndQueuePausesReachEveryShard() throws Exception {
        assertThat(run("jobs", "discard", "--queue", "mail", "--json")).as("exit; %s", err).isZero();
        assertThat(JSON.readTree(out.toString()).get("changed").asLong()).isEqualTo(9);
        for (String shard : shards.keySet()) {
            assertThat(count(shard, "state = 'discarded'")).as(shard).isEqualTo(3);
        }

        assertThat(run("queues", "pause", "mail")).isZero();
        assertThat(out.toString()).contains("on all 3 shards");
        for (String shard : shards.keySet()) {
            assertThat(query(shard, "SELECT count(*) FROM skipjack_queues WHERE name = 'mail' AND paused_at IS NOT NULL"))
                    .as("paused on %s", shard).isEqualTo(1);
        }
        assertThat(run("queues", "list", "--json")).isZero();
        JsonNode mail = JSON.readTree(out.toString()).get(0);
        assertThat(mail.get("paused").asBoolean()).isTrue();
        assertThat(mail.at("/counts/discarded").asLong()).as("summed").isEqualTo(9);
        assertThat(run("nodes", "--json")).isZero();
        assertThat(JSON.readTree(out.toString())).isEmpty();
    }

    @Test
    void aShardIsNamedByItsDatabaseUnlessNamedAndTwoOfOneNameAreRefused() {
        assertThat(ShardOptions.nameOf(DatabaseUrl.parse("postgres://ops@db1.internal:5432/Orders_EU?sslmode=require")))
                .isEqualTo("orders_eu");
        assertThat(ShardOptions.nameOf(DatabaseUrl.parse("jdbc:mariadb://127.0.0.1:3306/jobs2?user=root"))).isEqualTo("jobs2");
        assertThat(ShardOptions.nameOf(DatabaseUrl.parse("jdbc:sqlite:/var/lib/app/shard-3.db"))).isEqualTo("shard-3");

        String url = shards.values().iterator().next().getJdbcUrl();
        out = new StringWriter();
        err = new StringWriter();
        assertThat(CliInProcess.execute(out, err, List.of("jobs", "list", "--url", url, "--shard", url))).isNotZero();
        assertThat(err.toString()).contains("two shards are named").contains("--shard NAME=URL");
    }

    private long count(String shard, String where) throws SQLException {
        long total = 0;
        for (String name : shards.keySet()) {
            if (shard == null || shard.equals(name)) {
                total += query(name, "SELECT count(*) FROM skipjack_jobs WHERE " + where);
            }
        }
        return total;
    }

    private long query(String shard, String sql) throws SQLException {
        try (Connection c = shards.get(shard).getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
