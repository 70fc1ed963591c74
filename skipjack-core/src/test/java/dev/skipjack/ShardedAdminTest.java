package dev.skipjack;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.ShardedAdmin.ShardJob;
import dev.skipjack.ShardedAdmin.ShardJobPage;
import dev.skipjack.ShardedSkipjack.ShardJobId;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 16, item 4: the operators' view over shards. {@link ShardedSkipjack#admin()} over three
 * real databases of one backend sums counts, merges job lists with paging that neither skips nor
 * repeats a job, addresses each job by shard and id so a single-job action reaches its shard alone,
 * fans bulk actions and pauses out to every shard, and says exactly what is wrong with a bad
 * address or cursor. Expected values are read back from each database with plain SQL.
 */
class ShardedAdminTest extends EveryBackendTest {

    private static final JobKind<Task> TASK = JobKind.of("task", Task.class);

    record Task(int n) {
    }

    private final Map<String, HikariDataSource> shardDataSources = new LinkedHashMap<>();
    private ShardedSkipjack client;
    private ShardedAdmin admin;

    @BeforeEach
    void threeShards() {
        shardDataSources.putAll(backend.newShardDatabases(List.of("s1", "s2", "s3"), 4));
        ShardedSkipjack.Builder builder = ShardedSkipjack.builder(b -> b.kind(TASK));
        shardDataSources.forEach(builder::shard);
        client = builder.pinQueue("mail", "s3").build();
        client.migrate();
        admin = client.admin();
    }

    @AfterEach
    void closeShards() {
        if (client != null) {
            client.close();
        }
        shardDataSources.values().forEach(HikariDataSource::close);
    }

    /** Enqueues n unkeyed jobs: the shards take them in turn. */
    private List<ShardJobId> enqueue(int n, String queue) {
        List<ShardJobId> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(client.enqueue(TASK, new Task(i), EnqueueOptions.defaults().withQueue(queue)));
        }
        return ids;
    }

    private String stateOf(ShardJobId id) {
        try (Connection c = shardDataSources.get(id.shard()).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT state FROM skipjack_jobs WHERE id = " + id.id())) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void countsAreSummedOverTheShardsAndKeptPerShard() {
        enqueue(6, "default");
        enqueue(4, "mail");

        assertThat(admin.queues()).extracting(QueueInfo::name, q -> q.counts().get(JobState.AVAILABLE))
                .containsExactly(org.assertj.core.groups.Tuple.tuple("default", 6L), org.assertj.core.groups.Tuple.tuple("mail", 4L));
        assertThat(admin.countByState().get(JobState.AVAILABLE)).isEqualTo(10);
        Map<String, List<QueueInfo>> perShard = admin.queuesPerShard();
        assertThat(perShard.keySet()).containsExactly("s1", "s2", "s3");
        assertThat(perShard.get("s3")).filteredOn(q -> q.name().equals("mail")).singleElement()
                .extracting(QueueInfo::total).isEqualTo(4L);
        assertThat(perShard.get("s1")).extracting(QueueInfo::name).containsExactly("default");
        assertThat(admin.throughput(Duration.ofMinutes(10), Duration.ofMinutes(1))).hasSize(10);
        assertThat(admin.nodes().keySet()).containsExactly("s1", "s2", "s3");
        assertThat(admin.schedules().values()).allMatch(List::isEmpty);
    }

    @Test
    void pagesMergeEveryShardNewestFirstWithoutSkippingOrRepeatingAJob() {
        List<ShardJobId> enqueued = enqueue(23, "default");

        List<ShardJobId> listed = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            ShardJobPage page = admin.jobs(JobQuery.all().limit(4), cursor);
            assertThat(page.jobs().size()).isLessThanOrEqualTo(4);
            page.jobs().stream().map(ShardJob::address).forEach(listed::add);
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null);

        assertThat(pages).isEqualTo(6);
        assertThat(listed).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(enqueued);
        for (String shard : admin.shardNames()) {
            List<Long> ids = listed.stream().filter(a -> a.shard().equals(shard)).map(ShardJobId::id).toList();
            assertThat(ids).as("shard %s's jobs in its own order, newest id first", shard)
                    .isSortedAccordingTo(java.util.Comparator.reverseOrder());
        }
        ShardJobPage firstPage = admin.jobs(JobQuery.all().limit(4), null);
        assertThat(firstPage.jobs()).extracting(j -> j.job().createdAt())
                .isSortedAccordingTo(java.util.Comparator.reverseOrder());
        assertThat(admin.jobs(JobQuery.all().queue("mail"), null).jobs()).isEmpty();
    }

    @Test
    void aJobIsAddressedByShardAndIdAndActedOnOnItsShardOnly() {
        List<ShardJobId> ids = enqueue(3, "default");
        assertThat(ids).extracting(ShardJobId::shard).containsExactly("s1", "s2", "s3");
        // Ids are per database: three jobs with the same id, one on each shard.
        assertThat(ids).extracting(ShardJobId::id).containsOnly(ids.get(0).id());
        ShardJobId onS2 = admin.address("s2:" + ids.get(1).id());

        assertThat(admin.job(onS2)).get().extracting(ShardJob::shard).isEqualTo("s2");
        assertThat(admin.act(JobAction.CANCEL, onS2)).isTrue();

        assertThat(stateOf(ids.get(1))).isEqualTo("cancelled");
        assertThat(stateOf(ids.get(0))).isEqualTo("available");
        assertThat(stateOf(ids.get(2))).isEqualTo("available");
        assertThat(admin.job(new ShardJobId("s1", 999_999))).isEmpty();
    }

    @Test
    void bulkActionsAndPausesReachEveryShard() {
        List<ShardJobId> ids = enqueue(9, "default");
        AtomicLong heard = new AtomicLong();

        long changed = admin.act(JobAction.DISCARD, JobQuery.all().state(JobState.AVAILABLE), heard::set);

        assertThat(changed).isEqualTo(9);
        assertThat(heard).hasValue(9);
        assertThat(ids).allMatch(id -> "discarded".equals(stateOf(id)));

        admin.pause("default");
        assertThat(admin.queuesPerShard().values()).allSatisfy(queues -> assertThat(queues)
                .filteredOn(q -> q.name().equals("default")).singleElement().extracting(QueueInfo::paused).isEqualTo(true));
        admin.resume("default");
        assertThat(admin.queues()).filteredOn(q -> q.name().equals("default")).singleElement()
                .extracting(QueueInfo::paused).isEqualTo(false);
    }

    @Test
    void badAddressesAndCursorsAreRefusedSayingWhatIsWrong() {
        assertThatThrownBy(() -> admin.address("7")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("unique on its shard only").hasMessageContaining("s1:7");
        assertThatThrownBy(() -> admin.address("s9:7")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("no shard named 's9'").hasMessageContaining("[s1, s2, s3]");
        assertThatThrownBy(() -> admin.address("s1:x")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("is not SHARD:ID");
        assertThatThrownBy(() -> admin.jobs(JobQuery.all(), "s9:4")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("was not made by this listing");
        assertThatThrownBy(() -> admin.jobs(JobQuery.all().after(5L), null)).isInstanceOf(InvalidOptionException.class);

        ShardedAdmin one = ShardedAdmin.of(Map.of("only", client.shard("s1").admin()));
        assertThat(one.address("7")).isEqualTo(new ShardJobId("only", 7));
        assertThat(one.format(new ShardJobId("only", 7))).isEqualTo("7");
        Set<ShardJobId> seen = new HashSet<>();
        enqueue(6, "default");
        ShardJobPage first = one.jobs(JobQuery.all().limit(1), null);
        assertThat(first.nextCursor()).as("one shard pages by the bare id, as one database does")
                .isEqualTo(Long.toString(first.jobs().get(0).job().id()));
        seen.add(first.jobs().get(0).address());
        assertThat(one.jobs(JobQuery.all().limit(1), first.nextCursor()).jobs())
                .allMatch(j -> seen.add(j.address()));
    }
}
