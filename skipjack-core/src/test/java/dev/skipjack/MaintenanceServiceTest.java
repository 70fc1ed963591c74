package dev.skipjack;

import dev.skipjack.internal.maintenance.LeaderElector;
import dev.skipjack.internal.maintenance.MaintenanceService;
import dev.skipjack.internal.maintenance.MaintenanceTask;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The maintenance service owns every periodic task of a node with one error policy: a failing
 * round, whatever it throws, is counted and backed off, and the task keeps running; leader-only
 * tasks run on the elected node only, and at once when a node becomes leader; tasks that run user
 * code (the two-phase resolver) hold back no other task, however long that code takes.
 */
class MaintenanceServiceTest extends DatabaseTest {

    private SqlStatements sql;
    private final List<MaintenanceService> services = new ArrayList<>();

    @BeforeEach
    void migrated() {
        client(builder());
        sql = Dialect.POSTGRES.statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
    }

    @AfterEach
    void stopServices() {
        services.forEach(MaintenanceService::stop);
    }

    /** A round that fails with {@code failures} (thrown in turn), then succeeds. */
    private static final class Flaky implements MaintenanceTask.Round {
        final List<Throwable> failures;
        final List<Long> startedAtNanos = new CopyOnWriteArrayList<>();
        final AtomicInteger succeeded = new AtomicInteger();
        final CountDownLatch threeSuccesses = new CountDownLatch(3);

        Flaky(Throwable... failures) {
            this.failures = List.of(failures);
        }

        MaintenanceTask as(MaintenanceTask.Scope scope) {
            return new MaintenanceTask("flaky", scope, Duration.ofMillis(20), Duration.ZERO, this, false);
        }

        @Override
        public void run() throws Exception {
            int round = startedAtNanos.size();
            startedAtNanos.add(System.nanoTime());
            if (round < failures.size()) {
                Throwable t = failures.get(round);
                if (t instanceof Exception e) {
                    throw e;
                }
                throw (Error) t;
            }
            succeeded.incrementAndGet();
            threeSuccesses.countDown();
        }
    }

    private MaintenanceService service(String node, Duration term, MaintenanceTask... tasks) {
        MaintenanceService s = new MaintenanceService(new LeaderElector(dataSource, sql, node, term), List.of(tasks));
        services.add(s);
        s.start();
        return s;
    }

    @Test
    void aTaskThatThrowsKeepsRunningWithBackoffAndItsFailuresCounted() throws Exception {
        Flaky task = new Flaky(new IllegalStateException("database gone"),
                new RuntimeException("still gone"), new StackOverflowError("a bug"), new IllegalStateException("once more"));
        MaintenanceService service = service("node-a", Duration.ofSeconds(30), task.as(MaintenanceTask.Scope.EVERY_NODE));

        assertThat(task.threeSuccesses.await(10, TimeUnit.SECONDS)).as("rounds after four failures").isTrue();
        assertThat(service.failures("flaky")).isEqualTo(4);
        // Backoff doubles per failure in a row: the gap after the fourth failure is at least 8 intervals.
        long gapAfterFourth = task.startedAtNanos.get(4) - task.startedAtNanos.get(3);
        assertThat(Duration.ofNanos(gapAfterFourth)).isGreaterThanOrEqualTo(Duration.ofMillis(160));
        // After a success the normal interval applies again: later gaps are back under the backoff.
        long gapAfterSuccess = task.startedAtNanos.get(6) - task.startedAtNanos.get(5);
        assertThat(Duration.ofNanos(gapAfterSuccess)).isLessThan(Duration.ofNanos(gapAfterFourth));
    }

    @Test
    void leaderOnlyTasksRunOnTheLeaderAloneAndMoveWithLeadership() throws Exception {
        Flaky onA = new Flaky();
        Flaky onB = new Flaky();
        // A 2 s term: elections every second.
        MaintenanceService a = service("node-a", Duration.ofSeconds(2), onA.as(MaintenanceTask.Scope.LEADER));
        assertThat(onA.threeSuccesses.await(10, TimeUnit.SECONDS)).as("the leader runs its leader-only task").isTrue();
        service("node-b", Duration.ofSeconds(2), onB.as(MaintenanceTask.Scope.LEADER));
        // Over a whole election round of node-b and many rounds of the task, only the leader runs it.
        int aRounds = onA.succeeded.get();
        await("more rounds on the leader", Duration.ofSeconds(5), () -> onA.succeeded.get() >= aRounds + 60);
        assertThat(onB.succeeded.get()).as("rounds on the node that does not lead").isZero();

        // The leader stops and gives leadership up: node-b is elected at its next round and runs
        // the leader-only task at once.
        a.stop();
        int aStopped = onA.succeeded.get();
        assertThat(onB.threeSuccesses.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(onA.succeeded.get()).as("rounds on the stopped node").isEqualTo(aStopped);
    }

    @Test
    void tasksThatRunUserCodeHoldBackNoOtherTaskWhenTheyHang() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch bothHanging = new CountDownLatch(2);
        MaintenanceTask.Round hangs = () -> {
            bothHanging.countDown();
            release.await();
        };
        // Two of them, as many as the scheduler's threads: on those threads nothing else would run.
        MaintenanceTask first = MaintenanceTask.everyNode("user check 1", Duration.ofMillis(20), hangs).runningUserCode();
        MaintenanceTask second = MaintenanceTask.everyNode("user check 2", Duration.ofMillis(20), hangs).runningUserCode();
        Flaky other = new Flaky();
        try {
            service("node-a", Duration.ofSeconds(30), first, second, other.as(MaintenanceTask.Scope.EVERY_NODE));
            await("a user check to hang", Duration.ofSeconds(10), () -> bothHanging.getCount() < 2);
            int before = other.succeeded.get();
            await("rounds of the other task while it hangs", Duration.ofSeconds(10),
                    () -> other.succeeded.get() >= before + 3);
            // The user-code tasks share one thread: the second waits behind the first.
            assertThat(bothHanging.getCount()).isEqualTo(1);
        } finally {
            release.countDown();
        }
    }

    @Test
    void userCodeThatStopsTheNodeFromItsRoundKeepsNoInterruptOfTheStop() throws Exception {
        // A handler's check may stop its client: the stop interrupts the round's own thread, and
        // must take that back, or the rest of the node's stop would take it for the caller's.
        java.util.concurrent.atomic.AtomicReference<MaintenanceService> service = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.CompletableFuture<Boolean> interruptedAfterStop = new java.util.concurrent.CompletableFuture<>();
        CountDownLatch serviceSet = new CountDownLatch(1);
        MaintenanceTask stopsTheNode = MaintenanceTask.everyNode("user check", Duration.ofMillis(20), () -> {
            serviceSet.await();
            service.get().stop();
            interruptedAfterStop.complete(Thread.currentThread().isInterrupted());
        }).runningUserCode();
        service.set(service("node-a", Duration.ofSeconds(30), stopsTheNode));
        serviceSet.countDown();
        assertThat(interruptedAfterStop.get(10, TimeUnit.SECONDS)).as("interrupted after its own stop").isFalse();
    }
}
