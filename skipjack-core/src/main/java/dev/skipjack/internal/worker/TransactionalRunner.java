package dev.skipjack.internal.worker;

import dev.skipjack.internal.sql.ConnectionHints;
import dev.skipjack.Job;
import dev.skipjack.KindOptions;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.kind.RegisteredKind;
import dev.skipjack.internal.sql.Capability;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A job's whole path in transactional mode (F-4), for one queue: claims jobs inside a new
 * transaction, has the {@link JobExecutor} run each on that transaction, writes their outcomes in
 * the same transaction and commits through the kind's execution mode (plain commit, or prepare,
 * call and commit for two-phase kinds). The claims become visible only with the outcomes, so a
 * crash at any point rolls the jobs back to available, with the handlers' writes.
 * <p>
 * One transaction may run a group of jobs, one after the other on this job thread: the claim,
 * the outcomes' write and the commit are then paid once per group instead of once per job (see
 * docs/transactional-mode.md for the round trips). A handler's savepoint is taken at its first
 * call on its connection, so a handler that never touches it costs none, and one that writes has
 * its writes undone alone when it fails.
 * <p>
 * Handlers that write are grouped too, which lets two transactions each hold several handlers'
 * row locks: they can deadlock where one job per transaction never does (TransactionalModeTest's
 * transfers lock accounts in id order per job, not across jobs), and a job alone can be the
 * victim of a group. A conflict between transactions (deadlock, lock wait timeout, serialization
 * failure; in a group also claims the database rolled back) is the database's scheduling, not the
 * job's failure: the whole transaction is rolled back without counting an attempt, and its jobs
 * are available again at once, exactly as before the claim. The kinds whose handlers wrote in it
 * are not grouped again in this process, so a workload that deadlocks pays about one rollback per
 * kind. A job gets {@link #UNCOUNTED_CONFLICTS_IN_A_ROW} such rollbacks in a row in this process;
 * the next conflict counts as its failed attempt, so a handler that always reports one (or always
 * loses) cannot run for ever. A group's commit that the database refuses on a working connection
 * (a deferred constraint that one writer's work broke) is handled the same way: the database does
 * not say whose work it was, so no job is charged, and the writers' kinds run alone from then on,
 * where the job at fault has its own {@code CommitFailed} attempt counted.
 * <p>
 * A group's size adapts: it doubles, up to the dialect's {@link Dialect#maxTransactionalGroup()}
 * (32 on PostgreSQL and SQLite, 128 on MySQL and MariaDB), while a full group's handlers take
 * less than half of {@link #GROUP_BUDGET_NANOS} together, halves when they take more than it, and
 * drops to one after a lost transaction. Two-phase kinds (one prepared transaction per job) and
 * kinds with a server-side timeout (a transaction-wide setting) always run alone.
 */
final class TransactionalRunner {

    private static final Logger log = LoggerFactory.getLogger(TransactionalRunner.class);

    /** Conflicts between transactions a job may meet in a row, in this process, before one counts as its attempt. */
    static final int UNCOUNTED_CONFLICTS_IN_A_ROW = 3;
    /** More jobs than this waiting to commit after a conflict: forget them all (they may run elsewhere now). */
    private static final int MAX_TRACKED_CONFLICTS = 10_000;
    /**
     * A group grows while its handlers take less than this together: a handler's writes wait at
     * most about this long for the commit, and jobs claimed behind a handler wait for it. 10 ms
     * lets handlers that insert a row (about 1 ms each on a loaded 2-core machine, waits included)
     * form groups of 8 to 16, which is what pays: on a server that flushes every commit to disk, a
     * budget of 2 ms kept them at one or two and drained such jobs at 0.36 × lease mode, 10 ms at
     * about 1 × (docs/benchmarks.md, execution modes).
     */
    static final long GROUP_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final JobClaimer claimer;
    private final CompletionWriter writer;
    private final ExecutionTracker tracker;
    private final OutcomeTranslator translator;
    private final JobExecutor executor;
    private final Map<String, RegisteredKind> kinds;
    private final String workerId;
    private final String queue;
    /** The kinds of this queue that may be grouped: every transactional kind not in {@link #aloneKinds}. */
    private final Set<String> groupedKinds;
    /** Grouped kinds whose handlers wrote in a transaction that met a conflict: alone from then on. */
    private final Set<String> conflictedKinds = ConcurrentHashMap.newKeySet();
    /** Jobs whose transaction met a conflict and was rolled back uncounted, and have not committed since: how often in a row. */
    private final Map<Long, Integer> conflictsInARow = new ConcurrentHashMap<>();
    /** The kinds of this queue always claimed one job per transaction: two-phase kinds, kinds with a server-side timeout. */
    private final Set<String> aloneKinds;
    /** Writes the handler's reports in the job's transaction, with its outcome. */
    private final ReportWriter reports;
    /** Jobs the next group claims; shared by the queue's job threads, a heuristic, so races do not matter. */
    private final AtomicInteger groupSize = new AtomicInteger(1);
    /** The dialect's {@link Dialect#maxTransactionalGroup()}. */
    private final int maxGroup;

    TransactionalRunner(DataSource dataSource, SqlStatements sql, JobClaimer claimer, CompletionWriter writer,
                        ExecutionTracker tracker, OutcomeTranslator translator, JobExecutor executor,
                        Map<String, RegisteredKind> kinds, String workerId, String queue, Set<String> transactionalKinds,
                        ReportWriter reports) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.claimer = claimer;
        this.writer = writer;
        this.tracker = tracker;
        this.translator = translator;
        this.executor = executor;
        this.kinds = kinds;
        this.workerId = workerId;
        this.queue = queue;
        this.maxGroup = sql.dialect().maxTransactionalGroup();
        this.reports = reports;
        Set<String> grouped = new TreeSet<>();
        Set<String> alone = new TreeSet<>();
        for (String kind : transactionalKinds) {
            RegisteredKind registered = kinds.get(kind);
            boolean serverTimeout = registered != null && registered.options().timeout() != null
                    && sql.dialect().supports(Capability.STATEMENT_TIMEOUT);
            boolean prepares = registered != null && registered.mode().preparesTransaction();
            (serverTimeout || prepares ? alone : grouped).add(kind);
        }
        this.groupedKinds = Set.copyOf(grouped);
        this.aloneKinds = Set.copyOf(alone);
    }

    /** The handler's progress and log lines, written in the job's transaction just before its outcome. */
    private void flushReports(Connection c, Execution execution) {
        ExecutionReports reported = execution.reports();
        if (reported != null) {
            reports.flushInTransaction(c, reported);
        }
    }

    /**
     * Transactional mode: claims a group of jobs (and at most one of a kind that runs alone) in new
     * transactions, runs them there and commits. Returns false when there was nothing to claim.
     */
    boolean runOne() {
        Set<String> grouped = new TreeSet<>();
        Set<String> alone = new TreeSet<>(aloneKinds);
        for (String kind : groupedKinds) {
            (conflictedKinds.contains(kind) ? alone : grouped).add(kind);
        }
        boolean ran = false;
        if (!grouped.isEmpty()) {
            int size = groupSize.get();
            ran = run(c -> claimer.claimTransactional(c, queue, grouped, size), size);
        }
        if (!alone.isEmpty()) {
            ran |= run(c -> claimer.claimTransactional(c, queue, alone, 1), 0);
        }
        return ran;
    }

    /**
     * A transaction met a conflict with another, or a group's commit was refused, and it was rolled
     * back uncounted: the kinds whose handlers wrote in it run one job per transaction from now on.
     */
    private void conflicted(Group group, TransactionConflict conflict) {
        for (String kind : group.writers) {
            if (groupedKinds.contains(kind) && conflictedKinds.add(kind)) {
                log.info("transactional kind '{}' on queue {}: a transaction of {} job(s) {}"
                                + " ({}) and was rolled back without counting an attempt; its jobs run one per"
                                + " transaction from now on", kind, queue, group.jobs.size(), conflict.what,
                        OutcomeTranslator.messageOf(conflict.getCause()));
            }
        }
    }

    /**
     * Whether {@code c} still works after {@code failure}: {@code isValid}, which sqlite-jdbc
     * answers by throwing instead of false (added to {@code failure} when there is one).
     */
    private static boolean stillWorks(Connection c, SQLException failure) {
        try {
            return c.isValid(1);
        } catch (SQLException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
            return false;
        }
    }

    /** Whether {@code t} or one of its causes is a conflict between transactions. */
    private boolean isConflict(Throwable t) {
        return SqlCauses.any(t, sql.dialect()::isTransientConflict);
    }

    /**
     * The conflict to throw out of {@code group}'s transaction, charged to {@code jobs}: a job that
     * has now met more than {@link #UNCOUNTED_CONFLICTS_IN_A_ROW} in a row here has this one counted
     * as its failed attempt (recorded after the rollback, as for a lost transaction), the others
     * nothing.
     */
    private TransactionConflict conflict(Throwable cause, List<Long> jobs, Group group) {
        return uncounted(cause, jobs, group, "TransactionConflict", "met a conflict with another");
    }

    /**
     * The rollback of {@code group}'s transaction whose commit the database refused while its
     * connection still works, charged to {@code jobs} as a conflict is: a refusal that follows a
     * job wherever it runs still ends it.
     */
    private TransactionConflict refusedCommit(SQLException cause, List<Long> jobs, Group group) {
        return uncounted(cause, jobs, group, "CommitFailed", "failed to commit");
    }

    private TransactionConflict uncounted(Throwable cause, List<Long> jobs, Group group, String errorClass,
                                          String what) {
        if (conflictsInARow.size() > MAX_TRACKED_CONFLICTS) {
            conflictsInARow.clear();
        }
        List<Completion> counted = new ArrayList<>(0);
        for (long id : jobs) {
            if (conflictsInARow.merge(id, 1, Integer::sum) > UNCOUNTED_CONFLICTS_IN_A_ROW) {
                conflictsInARow.remove(id);
                ClaimedJob claimed = group.claimedOf(id);
                counted.add(translator.fromFailure(claimed, errorClass, "the job's transaction " + what + " "
                                + (UNCOUNTED_CONFLICTS_IN_A_ROW + 1) + " times in a row: "
                                + OutcomeTranslator.messageOf(cause), cause, executor.kindOptions(claimed), workerId));
            }
        }
        return new TransactionConflict(cause, counted, what);
    }

    /**
     * Thrown out of a transaction that met a conflict with another (or, for a group, whose claims
     * the database rolled back): the run rolls it back and counts no attempt.
     */
    private static final class TransactionConflict extends Exception {
        /** The failed attempts of the jobs out of uncounted conflicts, to record after the rollback. */
        final List<Completion> counted;
        /** What befell the transaction, for the log: "met a conflict with another", "failed to commit". */
        final String what;

        TransactionConflict(Throwable cause, List<Completion> counted, String what) {
            super(cause.getMessage(), cause, false, false);
            this.counted = counted;
            this.what = what;
        }
    }

    /**
     * Transactional mode for one given job (InlineRunner): claims job {@code id} in a new
     * transaction if it is available, runs it there and commits, exactly as {@link #runOne()}.
     * Returns false when the job was not available.
     */
    boolean runJob(long id) {
        return run(c -> claimer.claimJob(c, id), 0);
    }

    /** How a run claims its jobs, inside the transaction of {@code c}. */
    @FunctionalInterface
    private interface Claim {
        List<ClaimedJob> claim(Connection c) throws SQLException;
    }

    /** {@code grouped}: the group size asked for, which the run then adapts; 0 for a claim that runs alone. */
    private boolean run(Claim claim, int grouped) {
        Group group = null;
        List<Completion> lost = List.of();
        boolean conflict = false;
        boolean rollbackFailed = false;
        try (Connection c = dataSource.getConnection()) {
            Transactions.begin(c);
            Ended ended = null;
            try {
                List<ClaimedJob> jobs = claim.claim(c);
                if (jobs.isEmpty()) {
                    sql.dialect().commitToAutoCommit(c);
                    return false;
                }
                group = new Group(jobs);
                ended = runInTransaction(c, group);
                lost = ended.lost();
                rollbackFailed = ended.abandoned();
            } catch (TransactionConflict e) {
                // Every claim of the transaction is undone with it: its jobs are available at once, attempts unchanged.
                rollbackFailed = !Transactions.rollbackToAutoCommit(c, sql.dialect(), e);
                conflict = true;
                conflicted(group, e);
                lost = e.counted;
            } catch (Throwable t) {
                rollbackFailed = !Transactions.rollbackToAutoCommit(c, sql.dialect(), t);
                if (group != null) {
                    lost = group.lostToFailure(t);
                }
            } finally {
                // After a commit or a rollback only: with a transaction still open, setAutoCommit(true)
                // would commit it (so not after a failed rollback, which abandoned the connection).
                // A two-phase commit ends out of auto-commit.
                if (!rollbackFailed) {
                    resetQuietly(c);
                }
            }
            if (ended != null && !conflictsInARow.isEmpty()) {
                ended.committed().forEach(done -> conflictsInARow.remove(done.id()));
            }
            if (ended != null && !ended.committed().isEmpty()) {
                // A keyed job's end admits its key's next job (F-12, F-13), on this connection,
                // now in auto-commit: a second connection could wait on a pool this runner holds.
                writer.afterCommit(c, ended.committed());
            }
        } catch (Throwable t) {
            log.warn("transactional job on queue {} rolled back: {}", queue, t.toString());
            ConnectionHints.note(sql.dialect(), t);
        }
        if (grouped > 0 && group != null) {
            adaptGroupSize(grouped, group, lost.isEmpty() && !conflict);
        }
        for (Completion l : lost) {
            recordLostAttempt(l);
        }
        return true;
    }

    /**
     * Doubles the next group while full groups finish within the budget, halves it when a group
     * took longer, and starts again from one after a lost transaction.
     */
    private void adaptGroupSize(int asked, Group group, boolean committed) {
        if (!committed) {
            groupSize.set(1);
        } else if (group.handlerNanos > GROUP_BUDGET_NANOS) {
            groupSize.set(Math.max(1, asked / 2));
        } else if (group.jobs.size() == asked && group.handlerNanos * 2 <= GROUP_BUDGET_NANOS) {
            groupSize.set(Math.min(maxGroup, asked * 2));
        }
    }

    /**
     * What became of jobs run in their transaction: {@code committed} the completions that committed
     * with it, {@code lost} the completions to record for a transaction that was lost.
     */
    /** {@code abandoned}: the run rolled back itself, that failed, and its connection was abandoned. */
    private record Ended(List<Completion> committed, List<Completion> lost, boolean abandoned) {
        static final Ended NOTHING = new Ended(List.of(), List.of(), false);

        static Ended committed(List<Completion> completions) {
            return new Ended(completions, List.of(), false);
        }

        static Ended lost(List<Completion> completions) {
            return new Ended(List.of(), completions, false);
        }

        /** This end, after the run's own rollback, which failed (and abandoned the connection) unless {@code succeeded}. */
        Ended rolledBack(boolean succeeded) {
            return succeeded ? this : new Ended(committed, lost, true);
        }
    }

    /**
     * Rolls the run's transaction back in the middle of the run, which then ends without failing.
     * Returns false when the rollback failed: {@code c} was abandoned
     * ({@link Transactions#rollbackToAutoCommit}), which ends the transaction without a commit, and
     * must not be rolled back again nor reset; the run's catch would otherwise try both once more.
     */
    private boolean rollBackMidRun(Connection c, String why) {
        SQLException rollingBack = new SQLException("rolling back a transactional run on queue " + queue + ": " + why);
        if (Transactions.rollbackToAutoCommit(c, sql.dialect(), rollingBack)) {
            return true;
        }
        log.warn("{}; the rollback failed, so its connection was abandoned: {}", rollingBack.getMessage(),
                rollingBack.getSuppressed()[0].toString());
        return false;
    }

    /** The jobs of one transaction and what became of those that ran. */
    private final class Group {
        final List<ClaimedJob> jobs;
        /** The outcome of each job whose handler ran, in order. */
        final List<Completion> ran = new ArrayList<>();
        /** The kinds of the jobs that wrote: their handlers touched the connection, or they are workflow jobs. */
        final Set<String> writers = new TreeSet<>();
        long handlerNanos;

        Group(List<ClaimedJob> jobs) {
            this.jobs = jobs;
        }

        /**
         * The lost attempts of a transaction that rolled back: every job whose handler ran counts
         * one ({@code failing}, when given, is that job's own outcome); jobs not started yet are
         * simply available again, their attempt unchanged.
         */
        List<Completion> lost(Completion failing, String errorClass, String message, Throwable cause) {
            List<Completion> out = new ArrayList<>(ran.size());
            for (Completion c : ran) {
                if (failing != null && c.id() == failing.id()) {
                    out.add(failing);
                    continue;
                }
                ClaimedJob claimed = claimedOf(c);
                out.add(translator.fromFailure(claimed, errorClass, message, cause, executor.kindOptions(claimed), workerId));
            }
            return out;
        }

        List<Completion> lostToFailure(Throwable t) {
            return lost(null, "TransactionLost",
                    "the job's transaction was lost before it committed: " + OutcomeTranslator.messageOf(t), t);
        }

        private ClaimedJob claimedOf(Completion c) {
            return claimedOf(c.id());
        }

        ClaimedJob claimedOf(long id) {
            for (ClaimedJob j : jobs) {
                if (j.id() == id) {
                    return j;
                }
            }
            throw new IllegalStateException("job " + id + " is not in its group");
        }
    }

    /**
     * Runs the claimed jobs in their transaction, one after the other, and commits; says which
     * completions committed, or which to record for a transaction that was lost (neither when
     * shutdown took a job over).
     */
    private Ended runInTransaction(Connection c, Group group) throws SQLException, TransactionConflict {
        boolean alone = group.jobs.size() == 1;
        ClaimedJob claimedAlone = alone ? group.jobs.get(0) : null;
        // A job of a kind this process does not run (Skipjack.runJob) is failed by the executor, not here.
        RegisteredKind aloneKind = alone ? kinds.get(claimedAlone.kind()) : null;
        boolean prepared = aloneKind != null && aloneKind.mode().preparesTransaction();
        /* Outcomes written together before the commit: every job's but a failed writer's or a two-phase one's. */
        List<Completion> together = new ArrayList<>();
        LastWriter lastWriter = new LastWriter();
        List<Completion> committed = new ArrayList<>(group.jobs.size());
        Job<Object> lastJob = null;
        for (ClaimedJob claimed : group.jobs) {
            Execution execution = tracker.start(claimed, true, Long.MAX_VALUE);
            execution.bindConnection(c);
            try {
                KindOptions options = executor.kindOptions(claimed);
                // Without a transaction-scoped server timeout the interrupt and watchdog enforce it alone.
                if (options.timeout() != null && sql.dialect().supports(Capability.STATEMENT_TIMEOUT)) {
                    try (PreparedStatement ps = c.prepareStatement(sql.get("set_statement_timeout"))) {
                        ps.setString(1, Long.toString(Math.max(1, options.timeout().toMillis())));
                        ps.execute();
                    }
                }
                Savepoint[] beforeHandler = new Savepoint[1];
                if (claimed.workflowId() != null) {
                    // A workflow job's parents' outputs are read on the transaction before its handler runs.
                    beforeHandler[0] = savepointAfter(c, lastWriter, together, group);
                }
                long startedAt = System.nanoTime();
                java.util.concurrent.atomic.AtomicBoolean handlerReturned = new java.util.concurrent.atomic.AtomicBoolean();
                Completion completion;
                try {
                    completion = executor.execute(claimed, execution, HandlerConnection.wrap(c, () -> {
                        if (beforeHandler[0] == null) {
                            beforeHandler[0] = savepointAfter(c, lastWriter, together, group);
                        }
                    }, handlerReturned));
                } finally {
                    handlerReturned.set(true);
                }
                group.handlerNanos += System.nanoTime() - startedAt;
                if (!execution.settle()) {
                    // Shutdown took this execution over; roll back so the jobs are available at once.
                    return Ended.NOTHING.rolledBack(rollBackMidRun(c, "the shutdown took a job of it over"));
                }
                // A workflow job's outcome advances its workflow, other rows than its own: as a write.
                boolean wrote = beforeHandler[0] != null;
                if (wrote) {
                    group.writers.add(claimed.kind());
                    if (isConflict(execution.handlerFailure())) {
                        throw conflict(execution.handlerFailure(), List.of(claimed.id()), group);
                    }
                }
                group.ran.add(completion);
                lastJob = execution.job();
                if (!wrote) {
                    // Nothing of the handler's to keep or undo: its outcome waits for the others'.
                    flushReports(c, execution);
                    together.add(completion);
                    continue;
                }
                if (completion.isCompleted() && !prepared) {
                    // Its outcome waits for the others' too; the next savepoint, or the outcomes'
                    // write, finds out whether the handler left its transaction usable.
                    flushReports(c, execution);
                    lastWriter.track(claimed, execution, beforeHandler[0], options, together.size(), group.ran.size() - 1);
                    together.add(completion);
                    continue;
                }
                Completion written = writeAfterSavepoint(c, group, claimed, execution, completion, beforeHandler[0],
                        options, prepared, !alone);
                if (written == null) {
                    if (!alone && stillWorks(c, null)) {
                        // The connection works but the savepoint is gone: InnoDB rolled the whole
                        // transaction back (a deadlock the handler reported without its cause).
                        throw conflict(new SQLException("the job's transaction was rolled back by the database"),
                                List.of(claimed.id()), group);
                    }
                    boolean rolledBack = rollBackMidRun(c, "a job's outcome could not be written");
                    // A completion that could not be written is not what to record: its work is gone.
                    return Ended.lost(group.lost(completion.isCompleted() ? null : completion, "TransactionLost",
                            "the job's transaction was given up: it could not record the job's outcome", null))
                            .rolledBack(rolledBack);
                }
                group.ran.set(group.ran.size() - 1, written);
                committed.add(written);
            } finally {
                execution.bindConnection(null);
                tracker.finish(execution);
            }
        }
        if (!together.isEmpty()) {
            writeTogether(c, together, lastWriter, group, prepared, alone);
        }
        committed.addAll(together);
        try {
            if (!prepared || !committed.get(0).isCompleted()) {
                // Only the outcomes are kept, or a plain commit: no handler work to prepare, no external call to make.
                sql.dialect().commitToAutoCommit(c);
                return Ended.committed(committed);
            }
            Exception externalFailure = aloneKind.mode().commit(c, lastJob, sql);
            if (externalFailure != null) {
                return Ended.lost(List.of(translator.fromFailure(claimedAlone, "ExternalCallFailed",
                        "the external call failed, the prepared work was rolled back: "
                                + OutcomeTranslator.messageOf(externalFailure), externalFailure,
                        executor.kindOptions(claimedAlone), workerId)));
            }
        } catch (SQLException e) {
            if (isConflict(e)) {
                // A serialization failure at commit (SERIALIZABLE servers): nothing of it is kept.
                throw conflict(e, idsOf(committed), group);
            }
            if (group.jobs.size() > 1 && !group.writers.isEmpty() && stillWorks(c, e)) {
                // The database refused the commit (a deferred constraint one writer's work broke)
                // and cannot say whose work it was: no job of the group is charged; its writers'
                // kinds run alone from now on, where the job at fault has the failure counted.
                throw refusedCommit(e, idsOf(committed), group);
            }
            return Ended.lost(group.lost(null, "CommitFailed", "the job's transaction failed to commit: " + e.getMessage(), e));
        }
        return Ended.committed(committed);
    }

    /**
     * Writes the outcomes kept for the end of the transaction in one statement. A conflict gives the
     * transaction up (uncounted); a transaction the last writer left aborted fails that writer and
     * is written again; claims the database undid give a group up (uncounted) and fail a job alone.
     */
    private void writeTogether(Connection c, List<Completion> together, LastWriter lastWriter, Group group,
                               boolean prepared, boolean alone) throws SQLException, TransactionConflict {
        int written;
        while (true) {
            try {
                written = writer.write(c, together, !prepared);
                break;
            } catch (SQLException e) {
                if (isConflict(e)) {
                    throw conflict(e, idsOf(together), group);
                }
                // Writes again once at most: failing the last writer forgets it.
                if (!failLastWriter(c, lastWriter, together, group, e)) {
                    throw e;
                }
            }
        }
        if (written != together.size()) {
            // Something undid a claim of this transaction (e.g. InnoDB rolled it back after a
            // deadlock a handler swallowed): nothing of it may commit.
            SQLException undone = new SQLException("the jobs' claims are no longer in their transaction");
            if (!alone) {
                throw conflict(undone, idsOf(together), group);
            }
            throw undone;
        }
    }

    /**
     * The last job of a transaction whose handler used its connection and completed: its outcome
     * waits in the outcomes' write, and its savepoint stays at hand until the next statement shows
     * that the handler left the transaction usable.
     */
    private static final class LastWriter {
        ClaimedJob claimed;
        Execution execution;
        Savepoint savepoint;
        KindOptions options;
        int togetherIndex;
        int ranIndex;

        void track(ClaimedJob claimed, Execution execution, Savepoint savepoint, KindOptions options, int togetherIndex,
                   int ranIndex) {
            this.claimed = claimed;
            this.execution = execution;
            this.savepoint = savepoint;
            this.options = options;
            this.togetherIndex = togetherIndex;
            this.ranIndex = ranIndex;
        }
    }

    /**
     * A savepoint for the next handler. Since the last writer's outcome was not written right after
     * it, this is the first statement after it: when it finds the transaction aborted (PostgreSQL
     * aborts it at a failed statement, also one the handler caught and hid), that writer's work is
     * undone and its attempt fails, as {@link #failLastWriter} says.
     */
    private Savepoint savepointAfter(Connection c, LastWriter last, List<Completion> together, Group group)
            throws SQLException {
        Savepoint savepoint;
        try {
            savepoint = c.setSavepoint();
        } catch (SQLException e) {
            if (!failLastWriter(c, last, together, group, e)) {
                throw e;
            }
            savepoint = c.setSavepoint();
        }
        last.claimed = null; // the transaction took a statement after it: that writer left it usable
        return savepoint;
    }

    /**
     * When {@code e} says the transaction is aborted and a writer's outcome is pending, that writer
     * left it so: rolls back to its savepoint (its writes go, the transaction is usable again) and
     * turns its outcome into a failed attempt ({@code TransactionAborted}), instead of retrying it
     * for free forever. Returns false, doing nothing, for any other error.
     */
    private boolean failLastWriter(Connection c, LastWriter last, List<Completion> together, Group group,
                                   SQLException e) throws SQLException {
        if (last.claimed == null || !sql.dialect().isTransactionAborted(e)) {
            return false;
        }
        c.rollback(last.savepoint);
        Completion failed = translator.fromFailure(last.claimed, "TransactionAborted",
                "the handler's transaction could not complete the job: " + e.getMessage(), e, last.options, workerId);
        flushReports(c, last.execution);
        together.set(last.togetherIndex, failed);
        group.ran.set(last.ranIndex, failed);
        last.claimed = null;
        return true;
    }

    /**
     * Writes the outcome of a job whose handler ran after its own savepoint: a completed job keeps
     * the handler's writes; any other outcome, or a completion the transaction can no longer take,
     * rolls back to the savepoint and records the failure. Returns the outcome written, or null
     * when even that failed and the transaction must be given up. A conflict between transactions,
     * or in a group ({@code inGroup}) a claim the database rolled back, gives the transaction up.
     */
    private Completion writeAfterSavepoint(Connection c, Group group, ClaimedJob claimed, Execution execution,
                                           Completion completion, Savepoint beforeHandler, KindOptions options,
                                           boolean prepared, boolean inGroup) throws TransactionConflict {
        if (completion.isCompleted()) {
            try {
                flushReports(c, execution);
                if (writer.write(c, List.of(completion), !prepared) != 1) {
                    // Alone, a handler that ended the transaction itself (a ROLLBACK statement) fails its attempt.
                    SQLException undone = new SQLException("the job's claim is no longer in its transaction");
                    if (inGroup) {
                        throw conflict(undone, List.of(claimed.id()), group);
                    }
                    throw undone;
                }
                return completion;
            } catch (SQLException e) {
                if (isConflict(e)) {
                    throw conflict(e, List.of(claimed.id()), group);
                }
                // The handler left its transaction unusable (e.g. it swallowed a failed
                // statement): count the attempt as failed instead of retrying it for free forever.
                completion = translator.fromFailure(claimed, "TransactionAborted",
                        "the handler's transaction could not complete the job: " + e.getMessage(), e, options,
                        workerId);
            }
        }
        try {
            // Only a completed job keeps the handler's writes.
            c.rollback(beforeHandler);
            flushReports(c, execution);
            if (writer.write(c, List.of(completion)) != 1) {
                return null;
            }
            return completion;
        } catch (SQLException e) {
            return null;
        }
    }

    private static List<Long> idsOf(List<Completion> completions) {
        List<Long> ids = new ArrayList<>(completions.size());
        for (Completion c : completions) {
            ids.add(c.id());
        }
        return ids;
    }

    /** See record_lost_attempt.sql: counts an attempt whose transaction rolled back without our say. */
    private void recordLostAttempt(Completion lost) {
        try (Connection c = Transactions.autoCommit(dataSource)) {
            writer.writeLostAttempt(c, lost, workerId);
        } catch (Throwable t) {
            log.warn("could not record the lost attempt {} of job {}; it will be retried without counting it: {}",
                    lost.attempt(), lost.id(), t.toString());
        }
    }


    private static void resetQuietly(Connection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException ignored) {
            // Broken connections are discarded by the pool.
        }
    }
}
