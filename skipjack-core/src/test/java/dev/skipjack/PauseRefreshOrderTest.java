package dev.skipjack;

import dev.skipjack.internal.pause.PausedQueues;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.StatementLog;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-25: a node's view of the paused queues never goes back to an older read. A node reads them on
 * its timer and again right after it paused a queue itself; when the timer's read began before
 * the pause committed and ends after the node's own read, the older result must not replace the
 * newer one (seen: a node that had just paused a queue claimed 20 of its jobs,
 * {@code AdminActionsTest.pausedQueueIsNotClaimedOnAnyNodeUntilResumed}).
 */
class PauseRefreshOrderTest extends EveryBackendTest {

    private final CountDownLatch readDone = new CountDownLatch(1);
    private final CountDownLatch publish = new CountDownLatch(1);
    private final AtomicBoolean holdNextRead = new AtomicBoolean();

    /** The test's pool, except that the connection of the read it marks waits, after its query, for the test. */
    private DataSource holdingAfterRead() {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = StatementLog.forward(method, dataSource, args);
                    if (!method.getName().equals("getConnection") || !holdNextRead.getAndSet(false)) {
                        return result;
                    }
                    Connection real = (Connection) result;
                    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                            (p, m, a) -> {
                                if (m.getName().equals("close")) {
                                    readDone.countDown();
                                    assertThat(publish.await(30, TimeUnit.SECONDS)).isTrue();
                                }
                                return StatementLog.forward(m, real, a);
                            });
                });
    }

    @Test
    void aReadThatBeganBeforeAPauseDoesNotUndoTheReadThatSawIt() throws Exception {
        Skipjack operator = client(builder());
        PausedQueues view = new PausedQueues(holdingAfterRead(),
                Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock()),
                resumed -> { });

        holdNextRead.set(true);
        Thread timer = new Thread(view::refresh, "timer-read");
        timer.start();
        assertThat(readDone.await(30, TimeUnit.SECONDS)).as("the timer's read ran before the pause").isTrue();

        operator.admin().pause("reports");
        view.refresh(); // the pausing node's own read, after the commit
        assertThat(view.isPaused("reports")).isTrue();

        publish.countDown();
        timer.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(timer.isAlive()).isFalse();
        assertThat(view.isPaused("reports")).as("the older read, ending last, is dropped").isTrue();

        operator.admin().resume("reports");
        view.refresh();
        assertThat(view.isPaused("reports")).as("a later read still publishes").isFalse();
    }
}
