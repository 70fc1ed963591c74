package dev.skipjack.internal.claim;

import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.Row;
import dev.skipjack.internal.sql.SqlStatements;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.skipjack.internal.sql.Row.ColumnType.BIGINT;
import static dev.skipjack.internal.sql.Row.ColumnType.NULLABLE_BIGINT;
import static dev.skipjack.internal.sql.Row.ColumnType.TEXT;

/**
 * Runs the claim (F-1): claim.sql for lease mode, claim_transactional.sql for F-4. On PostgreSQL
 * that is one statement; where UPDATE cannot return rows the dialect locks the rows with SKIP
 * LOCKED, reads them and marks them running in one short transaction (see
 * {@link dev.skipjack.internal.sql.Dialect#updateReturning}).
 */
public final class JobClaimer {

    /**
     * What every claim statement returns (claim.sql, claim_transactional.sql, claim_job.sql on
     * each backend): id, queue, kind, args, priority, attempt, max_attempts, created_at and run_at
     * in epoch microseconds, workflow_id, workflow_step, concurrency_key, trace_context.
     */
    private static final Row.Columns CLAIMED = Row.columns(BIGINT, TEXT, TEXT, TEXT, BIGINT, BIGINT, BIGINT, BIGINT,
            BIGINT, NULLABLE_BIGINT, TEXT, TEXT, TEXT);

    private final SqlStatements sql;
    private final String workerId;
    private final long leaseMillis;

    public JobClaimer(SqlStatements sql, String workerId, Duration lease) {
        this.sql = sql;
        this.workerId = workerId;
        this.leaseMillis = lease.toMillis();
    }

    /**
     * Claims and commits up to {@code limit} jobs of {@code queue} whose kind is not in
     * {@code transactionalKinds}; they are running under this worker's lease when this returns.
     */
    public List<ClaimedJob> claim(Connection c, String queue, Set<String> transactionalKinds, int limit) throws SQLException {
        return run(c, "claim", queue, transactionalKinds, limit);
    }

    /**
     * Claims up to {@code limit} jobs of the given transactional kinds inside the open transaction
     * of {@code c}; nobody else sees them as claimed until that transaction commits.
     */
    public List<ClaimedJob> claimTransactional(Connection c, String queue, Set<String> transactionalKinds, int limit)
            throws SQLException {
        // Both claims mark their jobs the same way: one apply statement where the claim is two.
        return run(c, "claim_transactional", queue, transactionalKinds, limit);
    }

    /**
     * Claims job {@code id} when it is available, on {@code c} as it is: committed in auto-commit
     * (lease mode), or inside its open transaction (transactional mode). Empty when the job is not
     * available or another claimer holds its row right now.
     */
    public List<ClaimedJob> claimJob(Connection c, long id) throws SQLException {
        return read(sql.dialect().updateReturning(c, sql, "claim_job", "claim_apply", Params.of().bigint(id),
                Params.of().text(workerId).bigint(leaseMillis), CLAIMED));
    }

    private static Instant instantOfMicros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    private List<ClaimedJob> run(Connection c, String statement, String queue, Set<String> kinds, int limit)
            throws SQLException {
        List<Row> rows = sql.dialect().updateReturning(c, sql, statement, "claim_apply",
                Params.of().text(queue).list(ListType.TEXT, kinds).integer(limit),
                Params.of().text(workerId).bigint(leaseMillis), CLAIMED);
        return inClaimOrder(read(rows));
    }

    /**
     * UPDATE ... RETURNING gives the rows in no particular order (SQLite says so; PostgreSQL's
     * UPDATE ... FROM does not promise one either): hand them out in claim order. Sorted here, not
     * in {@link #read}'s loop, so the JIT compiles that loop without the sort inlined into it.
     * PostgreSQL's plan (a nested loop over the picked rows, in their order) returns them sorted
     * in practice, so they are checked first: the library's sort, shared with the completion's and
     * the heartbeat's comparators, was compiled five times over in a fresh worker (JFR).
     */
    private static List<ClaimedJob> inClaimOrder(List<ClaimedJob> jobs) {
        if (!isInClaimOrder(jobs)) {
            jobs.sort(ClaimedJob.CLAIM_ORDER);
        }
        return jobs;
    }

    private static boolean isInClaimOrder(List<ClaimedJob> jobs) {
        for (int i = 1; i < jobs.size(); i++) {
            if (ClaimedJob.CLAIM_ORDER.compare(jobs.get(i - 1), jobs.get(i)) > 0) {
                return false;
            }
        }
        return true;
    }

    private static List<ClaimedJob> read(List<Row> rows) {
        List<ClaimedJob> jobs = new ArrayList<>(rows.size());
        for (Row r : rows) {
            jobs.add(new ClaimedJob(r.getLong(1), r.getString(2), r.getString(3), r.getString(4),
                    r.getInt(5), r.getInt(6), r.getInt(7), instantOfMicros(r.getLong(8)), r.getLong(9),
                    r.getLongOrNull(10), r.getString(11), r.getString(12), r.getString(13)));
        }
        return jobs;
    }
}
