package dev.skipjack.internal.complete;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.concurrency.ConcurrencyAdmission;
import dev.skipjack.internal.workflow.WorkflowProgress;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Writes completions: plain completions with complete_jobs.sql, everything else with
 * record_outcomes.sql, one statement each per batch. Both are guarded by (id, attempt, running),
 * so writing the same completion twice, or after the job was rescued, changes nothing.
 * <p>
 * A workflow job's terminal completion (F-14) is written apart, one job per statement, in one
 * transaction with the workflow's progress ({@link WorkflowProgress}): each statement's count says
 * whether this write ended the job, and only a job it ended advances its workflow. Jobs outside
 * workflows never take that path, so they pay nothing for it.
 */
public final class CompletionWriter {

    private static final Comparator<Completion> BY_ID = (a, b) -> {
        int c = Long.compare(a.id(), b.id());
        return c != 0 ? c : Integer.compare(a.attempt(), b.attempt());
    };

    /** Columns of complete_jobs.sql's rows: id, attempt. */
    private static final List<ListType> EXECUTION = List.of(ListType.BIGINT, ListType.INTEGER);
    /** Columns of record_outcomes.sql's rows: id, attempt, state, delay, extra attempts, error, output. */
    private static final List<ListType> OUTCOME = List.of(ListType.BIGINT, ListType.INTEGER, ListType.TEXT,
            ListType.BIGINT, ListType.INTEGER, ListType.TEXT, ListType.TEXT);

    private final SqlStatements sql;
    private final WorkflowProgress workflows;
    /** Told, after the commit, the queues of workflow jobs a write made available. */
    private final Consumer<Set<String>> wake;
    /** Admits a key's next jobs after a keyed job ended (F-12, F-13); null in tools that never need it. */
    private final ConcurrencyAdmission admission;

    /** The backend the completions are written to. */
    Dialect dialect() {
        return sql.dialect();
    }

    public CompletionWriter(SqlStatements sql) {
        this(sql, new WorkflowProgress(sql, null), queues -> { }, null);
    }

    public CompletionWriter(SqlStatements sql, WorkflowProgress workflows, Consumer<Set<String>> wake,
                            ConcurrencyAdmission admission) {
        this.sql = sql;
        this.workflows = workflows;
        this.wake = wake;
        this.admission = admission;
    }

    /**
     * Writes the batch on {@code c}; returns the completions that changed their job. In auto-commit,
     * the workflow jobs' completions get a short transaction of their own; in an open transaction
     * (transactional mode) everything is written in it.
     */
    public int write(Connection c, List<Completion> batch) throws SQLException {
        return write(c, batch, true);
    }

    /**
     * As {@link #write(Connection, List)}; {@code notify} false sends no NOTIFY for workflow jobs made
     * available (a two-phase job's transaction is prepared, which PostgreSQL refuses after a NOTIFY).
     */
    public int write(Connection c, List<Completion> batch, boolean notify) throws SQLException {
        // No loop over the batch in this method, nor in the ones it calls directly: see Split.
        Split split = Split.of(batch);
        int changed = writePlain(c, split.plain()) + writeOther(c, split.other());
        if (split.inWorkflows() != null) {
            changed += writeAdvancingWorkflows(c, split.inWorkflows(), notify);
        }
        if (c.getAutoCommit()) {
            afterCommit(c, batch);
        }
        return changed;
    }

    /**
     * A batch split by the statement that writes it, each part sorted by id: the statements lock
     * rows in the order given, ascending ids like every batch update of running jobs, so two of
     * them touching the same jobs wait instead of deadlocking.
     * <p>
     * Every pass over a batch's completions lives in a small method of its own (here and in
     * {@code column}), not in {@code write}: a loop in {@code write} made the JIT compile
     * {@code write} on the stack, with the statement's binding and the driver's send and receive
     * inlined into it, several times over (about a second of C2 compilation in a fresh worker's
     * first 200,000 jobs, measured with JFR's jdk.Compilation). Without a loop, {@code write} runs
     * once per batch and is compiled cheaply; the small loops are compiled on their own.
     */
    private record Split(List<Completion> plain, List<Completion> other, List<Completion> inWorkflows) {

        static Split of(List<Completion> batch) {
            List<Completion> plain = new ArrayList<>(batch.size());
            List<Completion> other = new ArrayList<>();
            List<Completion> inWorkflows = null;
            for (Completion completion : batch) {
                if (completion.advancesWorkflow()) {
                    if (inWorkflows == null) {
                        inWorkflows = new ArrayList<>();
                    }
                    inWorkflows.add(completion);
                } else {
                    (completion.isPlainCompletion() ? plain : other).add(completion);
                }
            }
            plain.sort(BY_ID);
            other.sort(BY_ID);
            return new Split(plain, other, inWorkflows);
        }
    }

    /** One field of every completion, in order: a statement's array parameter (record_outcomes.sql's columns). */
    private static <T> List<T> column(List<Completion> completions, Function<Completion, T> field) {
        List<T> values = new ArrayList<>(completions.size());
        for (Completion completion : completions) {
            values.add(field.apply(completion));
        }
        return values;
    }

    /**
     * After the commit of completions written in a transaction (transactional mode), or right after
     * an auto-commit write: the keys whose job ended admit their next jobs (F-12, F-13), each in a
     * short transaction of its own on {@code c}, which is in auto-commit. Never inside the job's
     * transaction: a key's lock held there would last as long as the handler's work. A failure only
     * delays the admission to the next pass, so it is logged, not thrown.
     */
    public void afterCommit(Connection c, List<Completion> written) {
        if (admission == null) {
            return;
        }
        Set<String> keys = null;
        for (Completion completion : written) {
            if (completion.freesConcurrencySlot()) {
                if (keys == null) {
                    keys = new HashSet<>();
                }
                keys.add(completion.concurrencyKey());
            }
        }
        if (keys != null) {
            Set<String> queues = admission.admitQuietly(c, keys);
            if (!queues.isEmpty()) {
                wake.accept(queues);
            }
        }
    }

    private int writePlain(Connection c, List<Completion> plain) throws SQLException {
        if (plain.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get("complete_jobs"))) {
            Executions executions = Executions.of(plain);
            Params.of().rows(EXECUTION, List.of(executions.ids(), executions.attempts()))
                    .list(ListType.BIGINT, executions.ids())
                    .bind(ps, 1, sql.dialect());
            return ps.executeUpdate();
        }
    }

    /**
     * The ids and attempts of plain completions, complete_jobs.sql's arrays, in one pass. Not
     * through {@link #column}: on every plain batch (the drain's only statement per job) its
     * field function's call site saw two lambdas, then the outcome columns' five more, and C2
     * compiled it three times over in a fresh worker (JFR's jdk.Compilation).
     */
    private record Executions(List<Long> ids, List<Integer> attempts) {
        static Executions of(List<Completion> plain) {
            List<Long> ids = new ArrayList<>(plain.size());
            List<Integer> attempts = new ArrayList<>(plain.size());
            for (Completion completion : plain) {
                ids.add(completion.id());
                attempts.add(completion.attempt());
            }
            return new Executions(ids, attempts);
        }
    }

    private int writeOther(Connection c, List<Completion> other) throws SQLException {
        if (other.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get("record_outcomes"))) {
            Params.of().rows(OUTCOME, List.of(
                            column(other, Completion::id),
                            column(other, Completion::attempt),
                            column(other, Completion::state),
                            column(other, Completion::delayMillis),
                            column(other, Completion::extraAttempts),
                            column(other, Completion::errorJson),
                            column(other, Completion::outputJson)))
                    .bind(ps, 1, sql.dialect());
            return ps.executeUpdate();
        }
    }

    private record Written(int changed, Set<String> released) {
    }

    private int writeAdvancingWorkflows(Connection c, List<Completion> completions, boolean notify) throws SQLException {
        completions.sort(BY_ID);
        if (!c.getAutoCommit()) {
            // The caller's transaction (transactional mode): its commit makes it all visible; PostgreSQL's
            // NOTIFY goes out with it, a wake-up of this process may come early and cost a poll.
            Written w = writeAndAdvance(c, completions, notify);
            wake.accept(w.released());
            return w.changed();
        }
        Written w = sql.dialect().inShortTransaction(c, tx -> writeAndAdvance(tx, completions, notify));
        if (!w.released().isEmpty()) {
            wake.accept(w.released());
        }
        return w.changed();
    }

    /**
     * One statement per completion, so its count tells whether it ended the job (running to
     * terminal, this attempt); the workflows advance for exactly those.
     */
    private Written writeAndAdvance(Connection c, List<Completion> completions, boolean notify) throws SQLException {
        int changed = 0;
        List<WorkflowProgress.Ended> ended = new ArrayList<>(completions.size());
        for (Completion completion : completions) {
            List<Completion> one = List.of(completion);
            int n = completion.isPlainCompletion() ? writePlain(c, one) : writeOther(c, one);
            if (n == 1) {
                changed++;
                ended.add(new WorkflowProgress.Ended(completion.id(), completion.workflowId(), completion.state()));
            }
        }
        return new Written(changed, workflows.advance(c, ended, notify));
    }

    /**
     * Records the outcome of a transactional execution whose transaction was lost (see
     * record_lost_attempt.sql). Returns false when the job was claimed again meanwhile, or the
     * lost transaction committed after all. {@code c} is in auto-commit.
     */
    public boolean writeLostAttempt(Connection c, Completion lost, String workerId) throws SQLException {
        if (!lost.advancesWorkflow()) {
            return writeLostAttemptRow(c, lost, workerId);
        }
        Written w = sql.dialect().inShortTransaction(c, tx -> {
            if (!writeLostAttemptRow(tx, lost, workerId)) {
                return new Written(0, Set.of());
            }
            return new Written(1, workflows.advance(tx,
                    List.of(new WorkflowProgress.Ended(lost.id(), lost.workflowId(), lost.state()))));
        });
        if (!w.released().isEmpty()) {
            wake.accept(w.released());
        }
        return w.changed() == 1;
    }

    private boolean writeLostAttemptRow(Connection c, Completion lost, String workerId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("record_lost_attempt"))) {
            ps.setLong(1, lost.id());
            ps.setInt(2, lost.attempt());
            ps.setString(3, lost.state());
            if (lost.delayMillis() == null) {
                ps.setNull(4, java.sql.Types.BIGINT);
            } else {
                ps.setLong(4, lost.delayMillis());
            }
            ps.setString(5, workerId);
            ps.setString(6, lost.errorJson());
            return ps.executeUpdate() == 1;
        }
    }
}
