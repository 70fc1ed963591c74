package dev.skipjack.internal.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The executions this process holds: from claim until their outcome is written. The heartbeat
 * extends the leases of the lease-mode ones; shutdown hands back the ones that never settled.
 */
public final class ExecutionTracker {

    /**
     * Keyed by execution, not by job: when a rescued job is claimed back by this same process while
     * its stale attempt still runs, both are tracked, so the heartbeat can still stop the stale one.
     */
    private record Key(long id, int attempt) {
    }

    private final Map<Key, Execution> byExecution = new ConcurrentHashMap<>();

    /** @param leaseValidUntilNanos when the claim's lease surely ends on this JVM's clock (claim sent + lease) */
    Execution start(long id, int attempt, boolean transactional, long leaseValidUntilNanos) {
        Execution e = new Execution(id, attempt, transactional, leaseValidUntilNanos);
        byExecution.put(new Key(id, attempt), e);
        return e;
    }

    /** Forgets an execution once its outcome is in the database (or it was handed back). */
    public void finish(Execution e) {
        byExecution.remove(new Key(e.id, e.attempt), e);
    }

    /** Lease-mode executions, whose leases the heartbeat extends. */
    List<Execution> leased() {
        List<Execution> out = new ArrayList<>();
        for (Execution e : byExecution.values()) {
            if (!e.transactional) {
                out.add(e);
            }
        }
        return out;
    }

    boolean isTracked(Execution e) {
        return byExecution.get(new Key(e.id, e.attempt)) == e;
    }

    List<Execution> all() {
        return new ArrayList<>(byExecution.values());
    }

    public int size() {
        return byExecution.size();
    }
}
