package dev.skipjack.internal.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The executions this process holds: from claim until their outcome is written. The heartbeat
 * extends the leases of the lease-mode ones; shutdown hands back the ones that never settled.
 */
public final class ExecutionTracker {

    /** Sizes the set for this many executions (it first grows at about 6,000): a few full claim rounds plus the running jobs. */
    private static final int INITIAL_CAPACITY = 4096;

    /**
     * The executions themselves, by identity: when a rescued job is claimed back by this same
     * process while its stale attempt still runs, both are tracked, so the heartbeat can still
     * stop the stale one. (No (id, attempt) key object per claim: this set changes for every job.)
     * Sized from the start for a worker's buffered, running and unacknowledged jobs: growing
     * copies the table, and in a fresh JVM the copy's loop was hot enough for the JIT to compile
     * it three times (about 100 ms of compiler time, on the cores the database needs, during a
     * 20,000-job drain).
     */
    private final Set<Execution> executions = ConcurrentHashMap.newKeySet(INITIAL_CAPACITY);

    /**
     * Lease-mode executions held per queue, claimed until acknowledged: what the queue's fetcher
     * paces its claims by. Counted here, where executions begin and end, so that completion never
     * reaches back into the fetcher.
     */
    private final Map<String, AtomicInteger> leasedPerQueue = new ConcurrentHashMap<>();

    /** @param leaseValidUntilNanos when the claim's lease surely ends on this JVM's clock (claim sent + lease) */
    Execution start(dev.skipjack.internal.claim.ClaimedJob job, boolean transactional, long leaseValidUntilNanos) {
        Execution e = new Execution(job.queue(), job.id(), job.attempt(), transactional, leaseValidUntilNanos, job);
        if (!transactional) {
            leasedCount(job.queue()).incrementAndGet();
        }
        executions.add(e);
        return e;
    }

    /** Forgets an execution once its outcome is in the database (or it was handed back). */
    public void finish(Execution e) {
        if (executions.remove(e) && !e.transactional) {
            leasedCount(e.queue).decrementAndGet();
        }
    }

    /** Lease-mode executions of {@code queue} this process holds: running, buffered, or awaiting acknowledgement. */
    int leasedHeld(String queue) {
        return leasedCount(queue).get();
    }

    /** A plain lookup first: it runs twice per job, and computeIfAbsent is far larger for the JIT to compile. */
    private AtomicInteger leasedCount(String queue) {
        AtomicInteger count = leasedPerQueue.get(queue);
        return count != null ? count : leasedPerQueue.computeIfAbsent(queue, q -> new AtomicInteger());
    }

    /** Lease-mode executions, whose leases the heartbeat extends. */
    List<Execution> leased() {
        List<Execution> out = new ArrayList<>();
        forEachLeased(out::add);
        return out;
    }

    /** Calls {@code action} for each lease-mode execution, without copying them first. */
    void forEachLeased(Consumer<Execution> action) {
        for (Execution e : executions) {
            if (!e.transactional) {
                action.accept(e);
            }
        }
    }

    boolean isTracked(Execution e) {
        return executions.contains(e);
    }

    List<Execution> all() {
        return new ArrayList<>(executions);
    }

    public int size() {
        return executions.size();
    }
}
