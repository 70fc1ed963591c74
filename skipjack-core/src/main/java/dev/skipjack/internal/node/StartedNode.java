package dev.skipjack.internal.node;

import dev.skipjack.internal.observe.InterceptorChain;
import dev.skipjack.internal.observe.ListenerFanOut;
import dev.skipjack.internal.pool.PoolSizeCheck;
import dev.skipjack.internal.sql.Capability;

import dev.skipjack.JobState;
import dev.skipjack.SkipjackException;
import dev.skipjack.TwoPhaseJobHandler;
import dev.skipjack.internal.kind.ExecutionMode;
import dev.skipjack.internal.concurrency.ConcurrencyAdmission;
import dev.skipjack.internal.cron.CronTicker;
import dev.skipjack.internal.maintenance.DueJobPromoter;
import dev.skipjack.internal.maintenance.JobPruner;
import dev.skipjack.internal.maintenance.LeaderElector;
import dev.skipjack.internal.maintenance.LeaseRescuer;
import dev.skipjack.internal.maintenance.MaintenanceService;
import dev.skipjack.internal.maintenance.MaintenanceTask;
import dev.skipjack.internal.maintenance.RunFence;
import dev.skipjack.internal.notify.InsertListener;
import dev.skipjack.internal.pause.PausedQueues;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.twophase.PreparedTransactionResolver;
import dev.skipjack.internal.kind.RegisteredKind;
import dev.skipjack.internal.threads.WorkerThreads;
import dev.skipjack.internal.worker.WorkerRuntime;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

/**
 * What a started client runs, wired once: the worker runtime (runs jobs), the maintenance service
 * (periodic work) and the insert listener (wake-ups). Each part knows nothing of the others; this
 * class only connects their wake-up callbacks and orders start and stop.
 */
public final class StartedNode {

    /** Everything a node needs to start. */
    public record Settings(DataSource dataSource, SqlStatements sql, String workerId,
                           com.fasterxml.jackson.databind.ObjectMapper mapper, Map<String, RegisteredKind> kinds,
                           List<WorkerRuntime.QueueSettings> queues, WorkerRuntime.Timing timing,
                           Duration rescueInterval, Duration promoteInterval, Duration pruneInterval,
                           Map<JobState, Duration> retention, String notifyChannel,
                           CronTicker cronTicker, Duration cronInterval, Duration unservedQueueThreshold,
                           ListenerFanOut listeners, InterceptorChain interceptors, RunFence runFence) {
    }

    private final WorkerRuntime workers;
    private final PausedQueues pausedQueues;
    private final MaintenanceService maintenance;
    private final InsertListener listener;
    private final NodeRegistry registry;

    private StartedNode(Settings s) {
        this.pausedQueues = new PausedQueues(s.dataSource(), s.sql(), this::wake);
        this.workers = new WorkerRuntime(s.dataSource(), s.sql(), s.workerId(), s.mapper(), s.kinds(), s.queues(),
                s.timing(), pausedQueues, s.notifyChannel(), s.listeners(),
                s.interceptors());
        // One number for this run's last writes: a stop's late release or node removal must not
        // delete what a later run of the same client (same worker id) wrote.
        long run = s.runFence().nextRun();
        // A term of two rescue rounds: renewed every round, so one missed round keeps it.
        LeaderElector leader = new LeaderElector(s.dataSource(), s.sql(), s.workerId(), s.rescueInterval().multipliedBy(2),
                s.runFence(), run);
        List<MaintenanceTask> tasks = new ArrayList<>();
        LeaseRescuer rescuer = new LeaseRescuer(s.dataSource(), s.sql(), s.notifyChannel());
        tasks.add(MaintenanceTask.leaderOnly("lease rescue", s.rescueInterval(), () -> {
            int rescued = rescuer.rescueAll();
            if (rescued > 0) {
                s.listeners().leasesRescued(rescued);
            }
        }));
        // Every node: promotion wakes the node's own fetchers, and is safe to run concurrently.
        tasks.add(MaintenanceTask.everyNode("due job promotion", s.promoteInterval(),
                new DueJobPromoter(s.dataSource(), s.sql(), this::wake, s.notifyChannel())::promoteAll));
        tasks.add(MaintenanceTask.everyNode("pause refresh", PausedQueues.REFRESH_INTERVAL, pausedQueues::refresh));
        // Every node, as often as promotion: admits the keyed jobs no enqueue or completion admitted
        // (a caller's transaction, a rescue, an operator, a job come due). Concurrent passes take
        // turns per key, so running it everywhere costs no correctness.
        ConcurrencyAdmission admission = new ConcurrencyAdmission(s.sql(), s.dataSource(), s.notifyChannel());
        tasks.add(MaintenanceTask.everyNode("concurrency admission", s.promoteInterval(),
                () -> admission.admitDue(this::wake)));
        // Every node, no leader: a stale or split leader cannot double a tick, and nodes that
        // disagree about time cannot either (the database clock and one row per schedule decide).
        tasks.add(MaintenanceTask.everyNode("cron", s.cronInterval(), s.cronTicker()::tickRound));
        if (!s.retention().isEmpty()) {
            // First round one interval after start: by then the first election has settled.
            tasks.add(MaintenanceTask.leaderOnly("retention", s.pruneInterval(),
                    new JobPruner(s.dataSource(), s.sql(), s.retention(), leader::isLeader)::pruneRound)
                    .startingAfter(s.pruneInterval()));
        }
        Map<String, TwoPhaseJobHandler<Object>> twoPhase = ExecutionMode.twoPhaseHandlers(s.kinds());
        if (!twoPhase.isEmpty()) {
            // As often as the rescuer: an orphan is a lease old before it is resolved anyway. On every
            // node with two-phase kinds: the leader may have none, and its resolver would leave
            // every orphan locked in place (the job's row with it) forever. On a thread of its own:
            // it asks the handlers' externalEffectHappened, which may take any time.
            tasks.add(MaintenanceTask.everyNode("prepared transaction resolver", s.rescueInterval(),
                    new PreparedTransactionResolver(s.dataSource(), s.sql(), twoPhase, s.timing().lease())::resolveAll)
                    .runningUserCode());
        }
        this.registry = new NodeRegistry(s.dataSource(), s.sql(), s.workerId(), s.queues().stream()
                .map(q -> q.name() + ":" + q.concurrency()).collect(java.util.stream.Collectors.joining(", ")),
                s.runFence(), run);
        tasks.add(MaintenanceTask.everyNode("node registry", NodeRegistry.REFRESH_INTERVAL, registry::refresh));
        // After a first interval: by then the nodes of a fleet starting together have registered.
        tasks.add(MaintenanceTask.leaderOnly("unserved queue watch", UnservedQueueWatch.INTERVAL,
                new UnservedQueueWatch(s.dataSource(), s.sql(), s.unservedQueueThreshold())::check)
                .startingAfter(UnservedQueueWatch.INTERVAL));
        this.maintenance = new MaintenanceService(leader, tasks);
        this.listener = s.notifyChannel() == null ? null
                : new InsertListener(s.dataSource(), s.sql(), s.notifyChannel(), this::wake, workers::wakeAll);
    }

    /**
     * Starts a node, or refuses before anything runs (two-phase kinds on a server that cannot
     * prepare transactions): a refused start leaves nothing behind.
     */
    public static StartedNode start(Settings s) {
        boolean twoPhase = !ExecutionMode.twoPhaseHandlers(s.kinds()).isEmpty();
        if (twoPhase) {
            try {
                PreparedTransactionResolver.requirePreparedTransactions(s.dataSource(), s.sql());
            } catch (SQLException e) {
                throw new SkipjackException("could not read max_prepared_transactions: " + e.getMessage(), e);
            }
        }
        Map<String, Integer> needs = new java.util.LinkedHashMap<>(WorkerRuntime.connectionsNeeded(s.queues(), s.kinds(),
                s.sql().dialect().supports(Capability.CONCURRENT_WRITERS)));
        needs.put("maintenance", MaintenanceService.THREADS);
        // The two-phase resolver's own thread holds a connection through a handler's check.
        needs.put("prepared transaction resolver", twoPhase ? 1 : 0);
        needs.put("LISTEN", s.notifyChannel() == null ? 0 : 1);
        PoolSizeCheck.warnIfTooSmall(s.dataSource(), s.workerId(), needs);
        StartedNode node = new StartedNode(s);
        // Read pauses before the first claim, so a paused queue is never claimed from at start-up.
        node.pausedQueues.refresh();
        // Fetchers first: on a small machine the maintenance rounds, which run at once and each make
        // a round trip, held back the first claim by 5-10 ms. Nothing here needs them first.
        node.workers.start();
        node.maintenance.start();
        if (node.listener != null) {
            node.listener.start();
        }
        return node;
    }

    /** Wakes this node's fetchers of these queues: jobs were just made available. */
    public void wake(Set<String> queues) {
        workers.wake(queues);
    }

    /** Rereads the paused queues now rather than at the next refresh: this client just paused or resumed one. */
    public void refreshPauses() {
        pausedQueues.refresh();
    }

    /** Executions this node holds right now. */
    public int inFlight() {
        return workers.inFlight();
    }

    /**
     * Maintenance first (and leadership given up), then the jobs themselves (F-18). The wake-ups
     * are told to stop before either and awaited after both, so their last wait for notifications
     * overlaps the rest; a wake-up that still arrives meanwhile finds the fetchers stopping and
     * claims nothing.
     */
    public void stop(Duration timeout) {
        // The listener ends only when its current wait for notifications does: ask it first, wait for it last.
        if (listener != null) {
            listener.requestStop();
        }
        maintenance.stop();
        workers.stop(timeout);
        if (listener != null) {
            listener.stop();
        }
        // Best effort, like the leadership release: the row ages out of the nodes view otherwise.
        WorkerThreads.runWithin("skipjack-node-removal", WorkerThreads.STOP_WRITE_WAIT, registry::remove);
    }
}
