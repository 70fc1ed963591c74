package dev.skipjack.internal.worker;

import dev.skipjack.internal.threads.WorkerThreads;
import dev.skipjack.internal.kind.RegisteredKind;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.concurrency.ConcurrencyAdmission;
import dev.skipjack.internal.observe.InterceptorChain;
import dev.skipjack.internal.observe.ListenerFanOut;
import dev.skipjack.internal.pause.PausedQueues;
import dev.skipjack.internal.sql.Capability;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.workflow.WorkflowContexts;
import dev.skipjack.internal.workflow.WorkflowProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Runs jobs: one fetcher per queue, the job threads, the batch completer, the lease heartbeat and
 * its watchdog. Periodic maintenance (election, rescue, retention, promotion, pause refresh) is the
 * {@code MaintenanceService}'s; wake-ups come from outside through {@link #wake}.
 */
public final class WorkerRuntime {

    private static final Logger log = LoggerFactory.getLogger(WorkerRuntime.class);

    /** How long shutdown waits for a transactional handler that ignores its interrupt before aborting its connection. */
    static final Duration INTERRUPT_GRACE = Duration.ofSeconds(2);

    /** One queue's worker settings. */
    public record QueueSettings(String name, int concurrency, int maxBatch) {
    }

    /** The intervals that drive the runtime. */
    public record Timing(Duration lease, Duration heartbeatInterval, Duration pollInterval) {
    }

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final String workerId;
    private final Map<String, QueueDispatcher> fetchers = new LinkedHashMap<>();
    private final Timing timing;
    private final ExecutionTracker tracker = new ExecutionTracker();
    private final BatchCompleter<Execution> completer;
    private final LeasedCompletions completions;
    private final ExecutorService jobThreads;
    /** Whether the job threads are virtual (Java 21+, a database with concurrent writers). */
    private final boolean virtualJobThreads;
    /** Runs handler timeouts only. */
    private final ScheduledExecutorService timeouts = Executors.newSingleThreadScheduledExecutor(
            WorkerThreads.daemonFactory("skipjack-timeouts"));
    private final ScheduledExecutorService heartbeatTimer = Executors.newSingleThreadScheduledExecutor(
            WorkerThreads.daemonFactory("skipjack-heartbeat"));
    private final ScheduledExecutorService leaseWatchdog = Executors.newSingleThreadScheduledExecutor(
            WorkerThreads.daemonFactory("skipjack-lease-watchdog"));
    /** Writes what running handlers reported (Job.progress, Job.log); idle while none reports anything. */
    private final ScheduledExecutorService reportTimer = Executors.newSingleThreadScheduledExecutor(
            WorkerThreads.daemonFactory("skipjack-reports"));
    private final ReportWriter reports;
    /** How often the lease watchdog looks for executions whose lease this worker can no longer extend. */
    static final Duration LEASE_WATCHDOG_INTERVAL = Duration.ofMillis(50);

    /** Builds the path of a job, claim → dispatch → execute → complete, once per queue. */
    public WorkerRuntime(DataSource dataSource, SqlStatements sql, String workerId, ObjectMapper mapper,
                         Map<String, RegisteredKind> kinds, List<QueueSettings> queues, Timing timing,
                         PausedQueues pausedQueues, String notifyChannel, ListenerFanOut listeners,
                         InterceptorChain interceptors) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.workerId = workerId;
        this.timing = timing;
        OutcomeTranslator translator = new OutcomeTranslator(mapper);
        // Workflow jobs that a completion makes available wake this process's fetchers after the commit.
        // So do jobs of a concurrency key admitted when a job of their key ended (F-12, F-13).
        CompletionWriter writer = new CompletionWriter(sql, new WorkflowProgress(sql, notifyChannel), this::wake,
                new ConcurrencyAdmission(sql, dataSource, notifyChannel));
        boolean concurrentWriters = sql.dialect().supports(Capability.CONCURRENT_WRITERS);
        // On one write lock (SQLite) job threads are platform threads: a transactional job waits
        // for the lock in the driver's native busy handler, which sleeps there and pins a virtual
        // thread's carrier, and the job thread that just committed took the lock again ahead of
        // every sleeper. On Java 25, one client of four in a process ran 19,000 of 20,000
        // transactional jobs (NoDuplicatesNoLossTest); with platform threads they share it.
        WorkerThreads.JobThreads threads = WorkerThreads.newJobExecutor("skipjack-job",
                concurrentWriters && WorkerThreads.virtualThreadsAvailable());
        // What was made, not what was asked for: the start log says which the handlers run on.
        this.virtualJobThreads = threads.virtual();
        this.jobThreads = threads.executor();
        this.completer = new BatchCompleter<>(dataSource, writer, tracker::finish, translator::withUnstorableError, workerId,
                concurrentWriters ? BatchCompleter.WRITERS : 1);
        this.completions = new LeasedCompletions(completer, translator, workerId);
        JobClaimer claimer = new JobClaimer(sql, workerId, timing.lease());
        this.reports = new ReportWriter(dataSource, sql);
        JobExecutor executor = new JobExecutor(kinds, mapper, translator, completions, timeouts, workerId,
                new WorkflowContexts(dataSource, sql, mapper), reports, listeners, interceptors);
        // Kinds the lease claim leaves alone: those claimed inside their job's transaction (by the job
        // threads), and declared-only kinds (by whichever service has their handler).
        Set<String> claimedInTransaction = new TreeSet<>();
        Set<String> notLeaseClaimed = new TreeSet<>();
        for (RegisteredKind k : kinds.values()) {
            if (k.mode().claimedInTransaction()) {
                claimedInTransaction.add(k.kind());
                notLeaseClaimed.add(k.kind());
            } else if (!k.mode().runnable()) {
                notLeaseClaimed.add(k.kind());
            }
        }
        for (QueueSettings q : queues) {
            ClaimRound claims = new ClaimRound(dataSource, claimer, q.name(), q.maxBatch(), notLeaseClaimed,
                    sql.dialect(), completer);
            TransactionalRunner transactional = claimedInTransaction.isEmpty() ? null
                    : new TransactionalRunner(dataSource, sql, claimer, writer, tracker, translator, executor, kinds,
                    workerId, q.name(), claimedInTransaction, reports);
            fetchers.put(q.name(), new QueueDispatcher(q, timing, claims, executor, transactional, tracker, completions,
                    jobThreads, pausedQueues, sql.dialect(), listeners));
        }
    }

    /**
     * The connections the worker runtime of a node with these queues and kinds can hold at once,
     * by what holds them: every queue's claim statements, one per job thread where jobs run in
     * their claiming transaction, the completion writers and the heartbeat.
     */
    public static Map<String, Integer> connectionsNeeded(List<QueueSettings> queues, Map<String, RegisteredKind> kinds,
                                                         boolean concurrentWriters) {
        Map<String, Integer> needs = new LinkedHashMap<>();
        needs.put("for claim statements (" + (concurrentWriters ? ClaimRound.CLAIM_PARALLELISM : 1) + " per queue)",
                queues.size() * (concurrentWriters ? ClaimRound.CLAIM_PARALLELISM : 1));
        boolean transactional = kinds.values().stream().anyMatch(k -> k.mode().claimedInTransaction());
        needs.put("for transactional jobs (the queues' concurrency)",
                transactional ? queues.stream().mapToInt(QueueSettings::concurrency).sum() : 0);
        needs.put("completion writers", concurrentWriters ? BatchCompleter.WRITERS : 1);
        needs.put("heartbeat", 1);
        return needs;
    }

    public void start() {
        completer.start();
        fetchers.values().forEach(QueueDispatcher::start);
        LeaseHeartbeat heartbeat = new LeaseHeartbeat(dataSource, sql, tracker, workerId, timing.lease());
        heartbeatTimer.scheduleWithFixedDelay(heartbeat, timing.heartbeatInterval().toMillis(),
                timing.heartbeatInterval().toMillis(), TimeUnit.MILLISECONDS);
        // Separate thread: a heartbeat blocked on a stalled connection must not delay stopping
        // jobs whose lease has run out (found by NetworkFaultTest).
        leaseWatchdog.scheduleWithFixedDelay(heartbeat::abandonUnextendable, LEASE_WATCHDOG_INTERVAL.toMillis(),
                LEASE_WATCHDOG_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        // Its own thread: a write stalled on the database must delay neither the heartbeat nor a job.
        reportTimer.scheduleWithFixedDelay(this::flushReports, ReportWriter.FLUSH_INTERVAL.toMillis(),
                ReportWriter.FLUSH_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        log.info("Skipjack worker {} started: queues {}, {} threads", workerId, fetchers.keySet(),
                virtualJobThreads ? "virtual" : "platform");
    }

    /**
     * Writes what the running lease-mode handlers reported since the last round. A scan of the
     * held executions and nothing else while none reported anything. An execution that stopped
     * counting (timed out, abandoned, handed back) takes no more reports.
     */
    private void flushReports() {
        try {
            List<ExecutionReports> pending = new ArrayList<>();
            tracker.forEachLeased(e -> {
                ExecutionReports r = e.reports();
                if (r == null) {
                    return;
                }
                if (e.isSettled()) {
                    r.close();
                } else if (r.hasPending()) {
                    pending.add(r);
                }
            });
            if (!pending.isEmpty()) {
                reports.flushPending(pending);
            }
        } catch (Throwable t) {
            log.warn("writing job reports failed: {}", t.toString());
        }
    }

    /** Wakes the fetchers of these queues: jobs were just made available. */
    public void wake(Set<String> queues) {
        for (String q : queues) {
            QueueDispatcher f = fetchers.get(q);
            if (f != null) {
                f.wake();
            }
        }
    }

    /** Wakes every fetcher of this process. */
    public void wakeAll() {
        fetchers.values().forEach(QueueDispatcher::wake);
    }

    /** Number of executions this process holds right now. */
    public int inFlight() {
        return tracker.size();
    }

    /**
     * Graceful shutdown (F-18): stop claiming, let running jobs finish until the deadline, then
     * hand the rest back to the queue at once instead of leaving them to lease expiry.
     */
    public void stop(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        fetchers.values().forEach(QueueDispatcher::requestStop);
        boolean idle = true;
        try {
            for (QueueDispatcher f : fetchers.values()) {
                f.awaitStopped(deadline);
            }
            for (QueueDispatcher f : fetchers.values()) {
                idle &= f.awaitIdle(deadline);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            idle = false;
        }
        List<Execution> abandoned = new ArrayList<>();
        if (!idle) {
            for (Execution e : tracker.all()) {
                // A transactional job's outcome is its transaction's: settling it is enough, and
                // its connection is aborted below. A leased one is handed back, queued behind the
                // acknowledgements of finished jobs, so nothing finished is handed back.
                boolean settled = e.transactional ? e.settle() : completions.handBack(e, "shut down before the job finished");
                if (settled) {
                    abandoned.add(e);
                    e.interrupt();
                }
            }
        }
        completer.stop(Duration.ofSeconds(10));
        abortStuckTransactions(abandoned);
        heartbeatTimer.shutdownNow();
        leaseWatchdog.shutdownNow();
        reportTimer.shutdownNow();
        timeouts.shutdownNow();
        jobThreads.shutdownNow();
        log.info("Skipjack worker {} stopped; {} unfinished jobs handed back", workerId, abandoned.size());
    }

    /**
     * A transactional handler that ignored its interrupt still holds its transaction: aborting the
     * connection rolls it back, which makes the job available again at once.
     */
    private void abortStuckTransactions(List<Execution> abandoned) {
        long graceEnd = System.nanoTime() + INTERRUPT_GRACE.toNanos();
        for (Execution e : abandoned) {
            if (!e.transactional) {
                continue;
            }
            while (e.connection() != null && System.nanoTime() < graceEnd) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            Connection c = e.connection();
            if (c != null) {
                try {
                    c.abort(Runnable::run);
                } catch (Exception ex) {
                    log.warn("could not abort the connection of transactional job {}: {}", e.id(), ex.toString());
                }
            }
        }
    }
}
