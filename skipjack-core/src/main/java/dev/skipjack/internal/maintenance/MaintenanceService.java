package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.maintenance.LeaderElector;
import dev.skipjack.internal.threads.WorkerThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one owner of a node's periodic work: leader election, lease rescue, retention, due-job
 * promotion, pause refresh, the two-phase resolver. One scheduler runs every task but those that
 * run user code, which have a thread of their own (the resolver); one error policy
 * applies to all of them: a failed round is logged (at WARN when a run of failures starts, then
 * quietly), counted, and the task backs off exponentially up to {@link #MAX_BACKOFF} (the fetchers' own cap) before its
 * next round, which runs on its normal interval again once a round succeeds. No task can die.
 *
 * <p>Leader-only tasks are skipped on nodes that do not lead. The election is a task like the
 * others; when it makes this node the leader, the leader-only tasks run at once rather than one
 * interval later, so a node taking over from a dead leader rescues its jobs in the same round.
 */
public final class MaintenanceService {

    private static final Logger log = LoggerFactory.getLogger(MaintenanceService.class);

    /** Longest pause after repeated failures of one task. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    /**
     * Threads of the scheduler: a long retention round (up to 100 batches) must not hold back the
     * rescuer and the promoter, which the other thread keeps running.
     */
    public static final int THREADS = 2;

    private final LeaderElector leader;
    private final List<MaintenanceTask> tasks;
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    /** Failed rounds in a row per task; absent once a round succeeds. */
    private final Map<String, AtomicLong> streaks = new ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler;
    /**
     * The tasks that run user code ({@link MaintenanceTask#untrusted()}), one thread for them all:
     * a check that hangs holds back only those tasks. Null when there are none.
     */
    private final ScheduledExecutorService userCodeScheduler;
    /** The scheduler's threads: a stop called from one of them (a listener's callback) cannot wait for the rounds. */
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    /** @param tasks every task but the election, which {@code leader} is */
    public MaintenanceService(LeaderElector leader, List<MaintenanceTask> tasks) {
        this.leader = leader;
        List<MaintenanceTask> all = new ArrayList<>();
        all.add(MaintenanceTask.everyNode("leader election", leader.renewInterval(), leader::tryAcquire));
        all.addAll(tasks);
        this.tasks = List.copyOf(all);
        this.scheduler = schedulerOf(THREADS, "skipjack-maintenance");
        // Its threads count as the rounds' too: user code may stop the client from its round.
        this.userCodeScheduler = this.tasks.stream().anyMatch(MaintenanceTask::untrusted)
                ? schedulerOf(1, "skipjack-maintenance-user-code") : null;
        leader.onElected(this::runLeaderTasksNow);
    }

    /** A scheduler of {@code size} daemon threads named after {@code name}, each known as a round's thread. */
    private ScheduledExecutorService schedulerOf(int size, String name) {
        ThreadFactory named = WorkerThreads.daemonFactory(name);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(size, r -> {
            Thread t = named.newThread(r);
            threads.add(t);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    public void start() {
        for (MaintenanceTask task : tasks) {
            schedule(task, task.firstDelay(), false);
        }
    }

    /**
     * Stops every task (interrupting running rounds) and gives leadership up, so another node takes
     * over at once: waited for at most {@link WorkerThreads#STOP_WRITE_WAIT}, as the term ends by itself anyway.
     *
     * <p>The release waits for the rounds still running first (as long again at most): an interrupt
     * does not stop a JDBC statement already sent, and an election round's renewal that reached the
     * database after the release would take leadership back for a whole term, and no other node
     * could lead until it ran out; a node refresh would put the stopped node back in the nodes
     * view. A round that outlasts the wait undoes its own write when it ends
     * ({@link LeaderElector#tryAcquire}, {@link dev.skipjack.internal.node.NodeRegistry#refresh}).
     * A caller's interrupt does not cut the wait short (it is put back afterwards); a stop called
     * from a round itself does not wait, since the rounds cannot end before it returns.
     */
    public void stop() {
        stopped = true;
        Thread caller = Thread.currentThread();
        boolean fromARound = threads.contains(caller);
        boolean interruptedBefore = caller.isInterrupted();
        if (userCodeScheduler != null) {
            // Not waited for: its rounds only finish what any node may finish (an orphaned
            // prepared transaction), and user code may not return at all.
            userCodeScheduler.shutdownNow();
        }
        scheduler.shutdownNow();
        if (fromARound) {
            // Called from a round (a listener that stops the client): the scheduler cannot end while
            // this round runs, so there is nothing to wait for here; a round still running on the
            // other thread undoes its own late write. shutdownNow has just interrupted this very
            // thread: that interrupt is taken back, or the rest of the stop would take it for the
            // caller's and cut short the wait for running jobs.
            if (!interruptedBefore) {
                Thread.interrupted();
            }
        } else if (!WorkerThreads.awaitTermination(scheduler, WorkerThreads.STOP_WRITE_WAIT)) {
            log.warn("maintenance rounds still running {} after the stop; each undoes its own write when it ends",
                    WorkerThreads.STOP_WRITE_WAIT);
        }
        releaseLeadership();
    }

    private void releaseLeadership() {
        if (!WorkerThreads.runWithin("skipjack-leadership-release", WorkerThreads.STOP_WRITE_WAIT, leader::release)) {
            log.warn("giving maintenance leadership up took over {}; left to finish in the background"
                    + " (another node takes over when the term ends)", WorkerThreads.STOP_WRITE_WAIT);
        }
    }

    /** Failed rounds of a task since this node started, for tests and diagnostics. */
    public long failures(String taskName) {
        AtomicLong n = failures.get(taskName);
        return n == null ? 0 : n.get();
    }

    private void runLeaderTasksNow() {
        for (MaintenanceTask task : tasks) {
            if (task.scope() == MaintenanceTask.Scope.LEADER) {
                schedule(task, Duration.ZERO, true);
            }
        }
    }

    /** A one-off round does not reschedule itself: the task's own chain keeps its rhythm. */
    private void schedule(MaintenanceTask task, Duration delay, boolean oneOff) {
        if (stopped) {
            return;
        }
        try {
            (task.untrusted() ? userCodeScheduler : scheduler)
                    .schedule(() -> runRound(task, oneOff), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // Stopping: nothing more to schedule.
        }
    }

    private void runRound(MaintenanceTask task, boolean oneOff) {
        Duration next = task.interval();
        if (task.scope() == MaintenanceTask.Scope.EVERY_NODE || leader.isLeader()) {
            try {
                task.round().run();
                AtomicLong streak = streaks.remove(task.name());
                if (streak != null) {
                    log.info("{} works again after {} failed rounds", task.name(), streak.get());
                }
            } catch (Throwable t) {
                if (stopped) {
                    return;
                }
                failures.computeIfAbsent(task.name(), n -> new AtomicLong()).incrementAndGet();
                long inRow = streaks.computeIfAbsent(task.name(), n -> new AtomicLong()).incrementAndGet();
                next = backoff(task.interval(), inRow);
                if (inRow == 1) {
                    log.warn("{} failed, retrying with backoff: {}", task.name(), t.toString());
                } else {
                    log.debug("{} failed again ({} in a row), next try in {} ms: {}", task.name(), inRow,
                            next.toMillis(), t.toString());
                }
            }
        }
        if (!oneOff) {
            schedule(task, next, false);
        }
    }

    /** The interval doubled per failure in a row, at most {@link #MAX_BACKOFF} (but never below the interval). */
    static Duration backoff(Duration interval, long failuresInRow) {
        Duration d = interval;
        for (long i = 1; i < failuresInRow && d.compareTo(MAX_BACKOFF) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(MAX_BACKOFF) > 0 ? (interval.compareTo(MAX_BACKOFF) > 0 ? interval : MAX_BACKOFF) : d;
    }
}
