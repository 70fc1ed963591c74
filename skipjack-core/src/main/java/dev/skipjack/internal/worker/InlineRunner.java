package dev.skipjack.internal.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.concurrency.ConcurrencyAdmission;
import dev.skipjack.internal.kind.RegisteredKind;
import dev.skipjack.internal.observe.InterceptorChain;
import dev.skipjack.internal.observe.ListenerFanOut;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.internal.threads.WorkerThreads;
import dev.skipjack.internal.workflow.WorkflowContexts;
import dev.skipjack.internal.workflow.WorkflowProgress;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Runs one given job on the caller's thread through the worker's own parts (Skipjack.runJob, the
 * skipjack-testing helpers): the claim marks the row running ({@code claim_job.sql}), the
 * {@link JobExecutor} validates the args and calls the handler under its timeout, and the outcome
 * is written by the same {@link CompletionWriter} (workflow release, concurrency admission) before
 * {@link #run} returns. Lease-mode jobs are claimed in auto-commit and their outcome written by a
 * completer on the calling thread; transactional and two-phase ones go through the
 * {@link TransactionalRunner}, claim, handler and outcome in one transaction. No second path:
 * only the dispatch (fetcher, job threads, buffer) and the lease heartbeat are not used, so a
 * handler that runs longer than the lease can be rescued by a started node meanwhile.
 */
public final class InlineRunner implements AutoCloseable {

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final String workerId;
    private final Map<String, RegisteredKind> kinds;
    private final JobClaimer claimer;
    private final CompletionWriter writer;
    private final OutcomeTranslator translator;
    private final ExecutionTracker tracker = new ExecutionTracker();
    private final LeasedCompletions completions;
    private final JobExecutor executor;
    private final ReportWriter reports;
    /** Runs handler timeouts only, as the worker runtime's does. */
    private final ScheduledExecutorService timeouts = Executors.newSingleThreadScheduledExecutor(
            WorkerThreads.daemonFactory("skipjack-inline-timeouts"));

    /** @param wake told which queues a completion made jobs available in (a started node's fetchers) */
    public InlineRunner(DataSource dataSource, SqlStatements sql, String workerId, ObjectMapper mapper,
                        Map<String, RegisteredKind> kinds, Duration lease, String notifyChannel,
                        Consumer<Set<String>> wake, ListenerFanOut listeners, InterceptorChain interceptors) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.workerId = workerId;
        this.kinds = kinds;
        this.translator = new OutcomeTranslator(mapper);
        this.writer = new CompletionWriter(sql, new WorkflowProgress(sql, notifyChannel), wake,
                new ConcurrencyAdmission(sql, dataSource, notifyChannel));
        BatchCompleter<Execution> completer = BatchCompleter.onCallingThread(dataSource, writer, tracker::finish,
                translator::withUnstorableError);
        this.completions = new LeasedCompletions(completer, translator, workerId);
        this.claimer = new JobClaimer(sql, workerId, lease);
        this.reports = new ReportWriter(dataSource, sql);
        this.executor = new JobExecutor(kinds, mapper, translator, completions, timeouts, workerId,
                new WorkflowContexts(dataSource, sql, mapper), reports, listeners, interceptors);
    }

    /**
     * Claims job {@code id} of kind {@code kind} if it is available and runs it to its outcome on
     * this thread; false when it was not available (not due, taken by another worker, ended).
     * The kind must have a handler here (the caller checks, to say so clearly).
     */
    public boolean run(long id, String kind) throws SQLException {
        RegisteredKind registered = kinds.get(kind);
        if (registered == null || !registered.mode().runnable()) {
            throw new IllegalArgumentException("kind '" + kind + "' has no handler on worker " + workerId);
        }
        if (registered.mode().claimedInTransaction()) {
            return new TransactionalRunner(dataSource, sql, claimer, writer, tracker, translator, executor, kinds,
                    workerId, "(inline)", Set.of(kind), reports).runJob(id);
        }
        List<ClaimedJob> claimed;
        try (Connection c = Transactions.autoCommit(dataSource)) {
            claimed = claimer.claimJob(c, id);
        }
        if (claimed.isEmpty()) {
            return false;
        }
        ClaimedJob job = claimed.get(0);
        Execution execution = tracker.start(job, false, Long.MAX_VALUE);
        // Writes the outcome before it returns: the completer has no thread of its own.
        executor.runLeased(job, execution);
        return true;
    }

    @Override
    public void close() {
        timeouts.shutdownNow();
    }
}
