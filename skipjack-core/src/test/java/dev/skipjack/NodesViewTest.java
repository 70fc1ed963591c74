package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Operators see the nodes running now: each started client with its queues, the jobs it runs and
 * for how long; a stopped node leaves the view at once, a dead one (no refresh) within half a minute.
 */
class NodesViewTest extends EveryBackendTest {

    record Args(int n) {
    }

    static final JobKind<Args> WORK = JobKind.of("work", Args.class);
    static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void eachStartedNodeIsListedWithTheJobsItRunsNow() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Skipjack busy = client(builder().workerId("node-busy").queue("mail", 2).handler(WORK, job -> {
            running.countDown();
            release.await(30, TimeUnit.SECONDS);
            return Outcome.complete();
        }));
        Skipjack idle = client(builder().workerId("node-idle").queue("reports", 3).kind(WORK));
        busy.start();
        idle.start();
        long id = busy.enqueue(WORK, new Args(1), EnqueueOptions.defaults().withQueue("mail"));
        assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
        SkipjackAdmin admin = client(builder()).admin();
        await("both nodes listed", WAIT, () -> admin.nodes().size() == 2);

        List<NodeInfo> nodes = admin.nodes();
        NodeInfo b = nodes.get(0);
        NodeInfo i = nodes.get(1);
        assertThat(b.workerId()).isEqualTo("node-busy");
        assertThat(b.queues()).isEqualTo("mail:2");
        assertThat(b.running()).extracting(NodeInfo.RunningJob::id).containsExactly(id);
        assertThat(b.running().get(0).kind()).isEqualTo("work");
        assertThat(b.running().get(0).runningFor()).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(Duration.ofMinutes(1));
        assertThat(i.workerId()).isEqualTo("node-idle");
        assertThat(i.queues()).isEqualTo("reports:3");
        assertThat(i.running()).isEmpty();
        assertThat(b.startedAt()).isBeforeOrEqualTo(b.lastSeenAt());

        release.countDown();
        idle.stop(Duration.ofSeconds(5));
        // The stop removes its row but waits for that at most 2 s (on SQLite it can queue behind the
        // busy node's writes), so allow the removal a little longer than the stop itself.
        await("the stopped node to leave the view", Duration.ofSeconds(10),
                () -> admin.nodes().stream().map(NodeInfo::workerId).toList().equals(List.of("node-busy")));
    }

    /**
     * A process that crashed and started again with the same worker id (or a stop whose removal did
     * not happen) finds its earlier run's row: the view shows when this run started, not that one.
     */
    @Test
    void aNodeStartedAgainUnderTheSameWorkerIdShowsItsNewStart() {
        Skipjack node = client(builder().workerId("node-a").queue("default", 1).kind(WORK));
        execute("INSERT INTO " + table("skipjack_nodes") + " (worker_id, queues, started_at, last_seen_at)"
                + " VALUES ('node-a', 'default:1', " + nowPlus(Duration.ofMinutes(-5)) + ", " + nowPlus(Duration.ofMinutes(-4)) + ")");
        node.start();
        SkipjackAdmin admin = node.admin();
        await("listed", WAIT, () -> admin.nodes().size() == 1);
        NodeInfo listed = admin.nodes().get(0);
        // The earlier run's start was five minutes before its last round; this run's is at its first.
        assertThat(listed.startedAt()).as("the new run's start")
                .isAfter(listed.lastSeenAt().minus(Duration.ofMinutes(1))).isBeforeOrEqualTo(listed.lastSeenAt());
        Instant firstSeen = listed.lastSeenAt();
        await("refreshed again", WAIT, () -> admin.nodes().get(0).lastSeenAt().isAfter(firstSeen));
        assertThat(admin.nodes().get(0).startedAt()).as("kept by later rounds").isEqualTo(listed.startedAt());
    }

    @Test
    void aNodeThatStoppedRefreshingDropsOutOfTheView() {
        Skipjack node = client(builder().workerId("node-a").queue("default", 1).kind(WORK));
        node.start();
        SkipjackAdmin admin = node.admin();
        await("listed", WAIT, () -> admin.nodes().size() == 1);
        // A node that died a minute ago: its row stays, unrefreshed.
        execute("INSERT INTO " + table("skipjack_nodes") + " (worker_id, queues, started_at, last_seen_at)"
                + " VALUES ('node-dead', 'default:1', " + nowPlus(Duration.ofMinutes(-5)) + ", " + nowPlus(Duration.ofMinutes(-1)) + ")");
        assertThat(admin.nodes()).extracting(NodeInfo::workerId).containsExactly("node-a");
    }
}
