package dev.skipjack.internal.maintenance;

import dev.skipjack.JobState;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.internal.workflow.WorkflowPruner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * Retention (F-19): deletes completed, cancelled and discarded jobs once they are older than their
 * state's retention, in batches of {@link #BATCH} (prune_jobs.sql); then finished workflows (F-14),
 * each whole with its jobs ({@link WorkflowPruner}), which prune_jobs.sql leaves alone. A round repeats batches until
 * fewer than a full batch is found, but stops after {@link #MAX_BATCHES_PER_ROUND} so a large
 * backlog is worked off over several rounds with one statement in flight, never in one long burst.
 * Scheduled on the maintenance leader only; running it on two nodes at once would only duplicate
 * work (SKIP LOCKED splits the rows).
 */
public final class JobPruner {

    private static final Logger log = LoggerFactory.getLogger(JobPruner.class);
    /** Rows per DELETE: short locks and little WAL per statement. */
    static final int BATCH = 1_000;
    /** At most this many batches per round (100,000 rows); the rest waits for the next round. */
    static final int MAX_BATCHES_PER_ROUND = 100;

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final Map<JobState, Duration> keepFor;
    private final BooleanSupplier mayContinue;
    private final WorkflowPruner workflows;

    /**
     * @param keepFor     retention of each terminal state to prune; states absent are kept forever
     * @param mayContinue asked before every batch; false ends the round early (leadership lost, stopping)
     */
    public JobPruner(DataSource dataSource, SqlStatements sql, Map<JobState, Duration> keepFor,
                     BooleanSupplier mayContinue) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.keepFor = new EnumMap<>(JobState.class);
        this.keepFor.putAll(keepFor);
        this.mayContinue = mayContinue;
        this.workflows = new WorkflowPruner(sql);
        for (JobState s : this.keepFor.keySet()) {
            if (!s.isTerminal()) {
                throw new IllegalArgumentException("only terminal states are pruned, not " + s);
            }
        }
    }

    /** Whether any state is pruned at all; a pruner with nothing to do need not be scheduled. */
    public boolean hasWork() {
        return !keepFor.isEmpty();
    }

    /** One round over every pruned state; returns how many jobs and workflows it deleted. */
    public int pruneRound() throws SQLException {
        int total = 0;
        int batches = 0;
        try (Connection c = Transactions.autoCommit(dataSource)) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("prune_jobs"))) {
                for (Map.Entry<JobState, Duration> e : keepFor.entrySet()) {
                    int n;
                    do {
                        if (batches >= MAX_BATCHES_PER_ROUND || !mayContinue.getAsBoolean()
                                || Thread.currentThread().isInterrupted()) {
                            log.debug("pruning round stopped after {} batches, {} jobs", batches, total);
                            return total;
                        }
                        ps.setString(1, e.getKey().dbValue());
                        ps.setLong(2, e.getValue().toMillis());
                        ps.setInt(3, BATCH);
                        n = ps.executeUpdate();
                        batches++;
                        total += n;
                    } while (n == BATCH);
                }
            }
            // Workflows (F-14) go whole, after the retention of the state their own state stands for.
            for (Map.Entry<JobState, Duration> e : keepFor.entrySet()) {
                String workflowState = switch (e.getKey()) {
                    case COMPLETED -> "completed";
                    case DISCARDED -> "failed";
                    case CANCELLED -> "cancelled";
                    default -> throw new IllegalStateException("not a terminal state: " + e.getKey());
                };
                int n;
                do {
                    if (batches >= MAX_BATCHES_PER_ROUND || !mayContinue.getAsBoolean()
                            || Thread.currentThread().isInterrupted()) {
                        return total;
                    }
                    n = workflows.pruneBatch(c, workflowState, e.getValue().toMillis());
                    batches++;
                    total += n;
                } while (n == WorkflowPruner.BATCH);
            }
            // Lock rows of concurrency keys no job refers to any more (F-12, F-13): one per key ever
            // used, so per-customer keys would otherwise pile up. Counted apart from jobs.
            if (mayContinue.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
                try (PreparedStatement ps = c.prepareStatement(sql.get("prune_concurrency_keys"))) {
                    ps.setInt(1, BATCH);
                    int keys = ps.executeUpdate();
                    if (keys > 0) {
                        log.debug("pruned {} unused concurrency keys", keys);
                    }
                }
            }
        }
        if (total > 0) {
            log.debug("pruned {} finished jobs", total);
        }
        return total;
    }
}
