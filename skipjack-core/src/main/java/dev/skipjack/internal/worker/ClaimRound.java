package dev.skipjack.internal.worker;

import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.sql.Capability;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.internal.threads.WorkerThreads;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * The claim step of a job's path, for one queue: claims lease-mode jobs, splitting a large claim
 * into up to {@link #CLAIM_PARALLELISM} statements sent at once on separate connections, so one
 * queue can use more than one database core, and merges their jobs into claim order. On a
 * database with one write lock (no {@code CONCURRENT_WRITERS}) the statements of a round run one
 * after the other in one transaction, which first writes the completions waiting to be written.
 */
final class ClaimRound {

    /**
     * Claim statements one round may send at once. A claim's cost in the database is mostly per
     * row (the update of each claimed row), so one statement at a time caps a queue at one
     * database core however large the batch; smaller statements side by side finish sooner while
     * the database has cores to spare. The round waits for all of them and merges their jobs before
     * starting any: statements in flight together can finish in any order, and each takes rows the
     * other left, so only the merged round is in priority order (DelayedAndPriorityTest).
     */
    static final int CLAIM_PARALLELISM = 4;
    /**
     * A round is split only when every statement still gets at least this many jobs: below that
     * the statement's fixed cost (round trip, planning, commit) outweighs the rows.
     */
    static final int MIN_JOBS_PER_CLAIM = 50;

    /**
     * What one round claimed. {@code jobs} holds every job a statement did claim, even when another
     * statement of the round failed ({@code failure}): they are running under this worker's lease
     * and must be run or handed back.
     */
    record Claimed(List<ClaimedJob> jobs, Exception failure, long sentAtNanos, int asked) {

        /** Whether the round got every job it asked for: more are likely waiting. */
        boolean full() {
            return failure == null && jobs.size() == asked;
        }
    }

    private final DataSource dataSource;
    private final JobClaimer claimer;
    private final String queue;
    private final int maxBatch;
    /** Kinds the lease claim leaves alone: transactional ones and ones this client only declares. */
    private final Set<String> notLeaseClaimed;
    /** The backend: whether a round's statements go out at once, and how its transaction commits. */
    private final Dialect dialect;
    /**
     * Whose waiting completions a round writes in its own transaction, on a database with one
     * write lock; null on the others.
     */
    private final BatchCompleter<Execution> carried;
    /** Sends the second and later claim statements of a round; created on first use. */
    private ExecutorService helper;

    /**
     * @param completer the worker's completion writer: on a database without concurrent writers its
     *                  waiting completions go out in the claims' transactions
     */
    ClaimRound(DataSource dataSource, JobClaimer claimer, String queue, int maxBatch, Set<String> notLeaseClaimed,
               Dialect dialect, BatchCompleter<Execution> completer) {
        this.dataSource = dataSource;
        this.claimer = claimer;
        this.queue = queue;
        this.maxBatch = maxBatch;
        this.notLeaseClaimed = Set.copyOf(notLeaseClaimed);
        this.dialect = dialect;
        this.carried = dialect.supports(Capability.CONCURRENT_WRITERS) ? null : completer;
    }

    /** The most jobs one round claims. */
    int maxJobs() {
        return maxBatch * CLAIM_PARALLELISM;
    }

    /**
     * Claims up to {@code want} jobs; called by one thread at a time (the queue's dispatcher). With
     * {@code split} false the round is one statement of at most {@code maxBatch} jobs, whatever
     * {@code want} is.
     */
    Claimed claim(int want, boolean split) {
        if (!split) {
            want = Math.min(want, maxBatch);
        }
        if (carried != null) {
            return claimUnderTheWriteLock(want);
        }
        int parts = split ? statements(want) : 1;
        long sentAt = System.nanoTime();
        List<Future<List<ClaimedJob>>> others = new ArrayList<>(parts - 1);
        int first = want - (want / parts) * (parts - 1);
        for (int i = 1; i < parts; i++) {
            int limit = want / parts;
            others.add(helper().submit(() -> claimOne(limit)));
        }
        List<ClaimedJob> jobs = new ArrayList<>(want);
        Exception failure = null;
        try {
            jobs.addAll(claimOne(first));
        } catch (Exception e) {
            failure = e;
        }
        for (Future<List<ClaimedJob>> other : others) {
            try {
                jobs.addAll(getUninterruptibly(other));
            } catch (ExecutionException e) {
                Exception cause = e.getCause() instanceof Exception ex ? ex : e;
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        if (parts > 1) {
            jobs.sort(ClaimedJob.CLAIM_ORDER);
        }
        return new Claimed(jobs, failure, sentAt, want);
    }

    void close() {
        if (helper != null) {
            helper.shutdown();
        }
    }

    /** Statements for a claim of {@code want} jobs: enough for maxBatch each, split further while each keeps enough. */
    private int statements(int want) {
        int needed = (want + maxBatch - 1) / maxBatch;
        int worthIt = Math.max(1, want / MIN_JOBS_PER_CLAIM);
        return Math.min(CLAIM_PARALLELISM, Math.max(needed, worthIt));
    }

    private List<ClaimedJob> claimOne(int limit) throws Exception {
        try (Connection c = Transactions.autoCommit(dataSource)) {
            return claimer.claim(c, queue, notLeaseClaimed, limit);
        }
    }

    /**
     * A round on a database with one write lock: one transaction that writes the completions
     * waiting to be written, then claims with as many statements of at most maxBatch jobs as
     * {@code want} needs, one after the other. Statements side by side would only queue for the
     * lock; in one transaction the round takes the lock once and commits (an fsync) once, where a
     * claim and a completion write from separate threads each waited for the lock, each committed,
     * and handed the lock to one another. A SQLite drain of 200,000 jobs: about 12 % faster with
     * the completions carried, about 10 % more with rounds of up to 800 jobs instead of 200
     * (docs/benchmarks.md). When the completions cannot be written the claim goes on without them;
     * when the claim fails they are written on their own. A commit that fails counts as a failed
     * round: its jobs, if they did commit, are rescued when their leases run out, as after a
     * claim whose answer was lost; its completions are written again, which the guard makes harmless.
     */
    private Claimed claimUnderTheWriteLock(int want) {
        long sentAt = System.nanoTime();
        try (Connection c = Transactions.autoCommit(dataSource)) {
            BatchCompleter<Execution>.Carried completions = carried.take();
            return new Claimed(claimCarrying(c, completions, want), null, sentAt, want);
        } catch (Exception e) {
            // Rolled back: the round claimed nothing.
            return new Claimed(List.of(), e, sentAt, want);
        } finally {
            carried.roundEnded();
        }
    }

    private List<ClaimedJob> claimCarrying(Connection c, BatchCompleter<Execution>.Carried completions, int want)
            throws Exception {
        if (completions == null && want <= maxBatch) {
            return claimer.claim(c, queue, notLeaseClaimed, want); // one statement: its own transaction
        }
        boolean begun = false;
        boolean written = completions == null;
        List<ClaimedJob> jobs;
        try {
            Transactions.begin(c); // BEGIN IMMEDIATE: waits for the write lock up to the busy timeout
            begun = true;
            if (completions != null) {
                completions.write(c);
                written = true;
            }
            jobs = claimStatements(c, want);
            dialect.commitToAutoCommit(c);
        } catch (Exception | Error e) {
            // A rollback that failed leaves c unusable (Transactions abandons it): nothing more on it.
            boolean ended = !begun || Transactions.rollbackToAutoCommit(c, dialect, e);
            if (completions != null && begun && ended) {
                completions.rolledBack(c);
            } else if (completions != null) {
                // No lock within the busy timeout (another try now would wait as long again), or
                // no connection to write them on: back to the queue.
                completions.giveBack();
            }
            if (begun && ended && !written && e instanceof java.sql.SQLException) {
                return claimCarrying(c, null, want);
            }
            throw e;
        }
        if (completions != null) {
            completions.committed(c);
        }
        return jobs;
    }

    /** Claims up to {@code want} jobs on {@code c}, at most maxBatch a statement, until one comes back short. */
    private List<ClaimedJob> claimStatements(Connection c, int want) throws java.sql.SQLException {
        List<ClaimedJob> jobs = new ArrayList<>(want);
        while (jobs.size() < want) {
            int limit = Math.min(maxBatch, want - jobs.size());
            List<ClaimedJob> claimed = claimer.claim(c, queue, notLeaseClaimed, limit);
            jobs.addAll(claimed);
            if (claimed.size() < limit) {
                break;
            }
        }
        return jobs;
    }

    private ExecutorService helper() {
        if (helper == null) {
            helper = Executors.newFixedThreadPool(CLAIM_PARALLELISM - 1,
                    WorkerThreads.daemonFactory("skipjack-claimer-" + queue));
        }
        return helper;
    }

    /** The claimed jobs must be tracked whatever happens to this thread, so wait them out. */
    private static <T> T getUninterruptibly(Future<T> future) throws ExecutionException {
        return WorkerThreads.uninterruptibly(future::get);
    }
}
