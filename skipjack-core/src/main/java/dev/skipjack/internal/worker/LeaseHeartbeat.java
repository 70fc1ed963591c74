package dev.skipjack.internal.worker;

import dev.skipjack.internal.sql.ConnectionHints;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.Row;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Extends the leases of every lease-mode execution this process holds, in one statement, on the
 * database clock (F-3). Runs on a thread of its own so that no other work can delay it.
 *
 * <p>An execution an operator cancelled or discarded keeps its lease: its handler is interrupted
 * and the job ends when the handler returns. An execution stops counting when its job is no
 * longer ours: when the database did not extend its lease (rescued after a stall, or ended
 * elsewhere), or when this worker has not managed to extend it for a whole lease (database
 * unreachable: another worker may already have it). Its handler is interrupted and its outcome
 * will not be recorded; the rescued copy is the one that counts.
 */
final class LeaseHeartbeat implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(LeaseHeartbeat.class);

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final ExecutionTracker tracker;
    private final String workerId;
    private final Duration lease;

    LeaseHeartbeat(DataSource dataSource, SqlStatements sql, ExecutionTracker tracker, String workerId, Duration lease) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.tracker = tracker;
        this.workerId = workerId;
        this.lease = lease;
    }

    @Override
    public void run() {
        try {
            List<Execution> leased = tracker.leased();
            if (!leased.isEmpty()) {
                extend(leased);
            }
        } catch (Throwable t) {
            log.warn("lease heartbeat failed: {}", t.toString());
            ConnectionHints.note(sql.dialect(), t);
        }
        abandonExpiredSafely(System.nanoTime());
    }

    /** @param leased a list of this call's own (the tracker's fresh copy): it is sorted in place */
    private void extend(List<Execution> leased) throws Exception {
        // extend_leases.sql locks rows in the order given: ascending ids, as the completer does.
        leased.sort(Comparator.comparingLong(Execution::id).thenComparingInt(Execution::attempt));
        long sentAt = System.nanoTime();
        // (id, attempt) pairs, each with the state an operator asked it to end in (null: none): this
        // process may hold a stale and a current attempt of one job.
        Map<List<Long>, String> extended = new HashMap<>();
        try (Connection c = Transactions.autoCommit(dataSource)) {
            for (Row r : sql.dialect().updateReturning(c, sql, "extend_leases",
                    Params.of().rows(List.of(ListType.BIGINT, ListType.INTEGER), List.of(
                                    leased.stream().map(Execution::id).toList(),
                                    leased.stream().map(Execution::attempt).toList()))
                            .text(workerId),
                    Params.of().bigint(lease.toMillis()))) {
                extended.put(List.of(r.getLong(1), r.getLong(2)), r.getString(3));
            }
        }
        long leaseNanos = lease.toNanos();
        for (Execution e : leased) {
            List<Long> execution = List.of(e.id(), (long) e.attempt());
            if (extended.containsKey(execution)) {
                e.leaseExtended(sentAt, leaseNanos);
                String stop = extended.get(execution);
                if (stop != null) {
                    stop(e, stop);
                }
            } else if (tracker.isTracked(e)) {
                // Written by the completer in the meantime, or rescued from us after a stall.
                abandon(e, "its lease could not be extended (the job was rescued after a stall, or ended elsewhere)");
            }
        }
    }

    /**
     * An operator cancelled or discarded the running job: its handler is interrupted, again at every
     * heartbeat while it runs (a handler may swallow one interrupt), and the execution still counts
     * (its lease is extended) until the handler returns, when its outcome is recorded as the
     * requested state unless it completed the job ({@link LeasedCompletions}).
     */
    private static void stop(Execution e, String state) {
        if (e.isSettled()) {
            return;
        }
        if (e.requestStop(state)) {
            log.info("job {} attempt {}: an operator asked for it to be {}; interrupting its handler", e.id(), e.attempt(), state);
        }
        e.interrupt();
    }

    /**
     * Stops every execution whose lease this worker can no longer vouch for. Runs on a timer of
     * its own, not only after an extension: an extension stuck on a stalled connection (a network
     * partition, a pool waiting for a connection) must not keep it from running. It stops a
     * little early, by {@code safetyMargin}, so the handler is interrupted before the database
     * lease (which starts later than the local one) can expire and the job be rescued.
     */
    public void abandonUnextendable() {
        abandonExpiredSafely(System.nanoTime() + safetyMarginNanos(lease));
    }

    /**
     * Never throws: both callers run on a scheduled executor, which cancels a task for good once it
     * throws, and without this watchdog a handler whose lease ran out would run on beside the copy
     * the rescuer gave to another worker.
     */
    private void abandonExpiredSafely(long now) {
        try {
            abandonExpired(now);
        } catch (Throwable t) {
            log.warn("checking executions for leases that may have run out failed; checking again at the next round: {}",
                    t.toString());
        }
    }

    /** How early before its lease may run out an execution is given up: a tenth of the lease, a second at most. */
    static long safetyMarginNanos(Duration lease) {
        return Math.min(lease.toNanos() / 10, 1_000_000_000L);
    }

    private void abandonExpired(long now) {
        // Every 50 ms over every held execution: no copy of them, this runs at full load too.
        tracker.forEachLeased(e -> {
            if (e.leaseMayHaveExpired(now)) {
                abandon(e, "this worker could not extend its lease in time");
            }
        });
    }

    private void abandon(Execution e, String why) {
        if (e.settle()) {
            log.warn("job {} attempt {} no longer counts here: {}; interrupting its handler", e.id(), e.attempt(), why);
            e.interrupt();
            tracker.finish(e);
        }
    }
}
