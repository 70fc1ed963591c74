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

    private final Map<Long, Execution> byJobId = new ConcurrentHashMap<>();

    Execution start(long id, int attempt, boolean transactional) {
        Execution e = new Execution(id, attempt, transactional);
        byJobId.put(id, e);
        return e;
    }

    /** Forgets an execution once its outcome is in the database (or it was handed back). */
    public void finish(Execution e) {
        byJobId.remove(e.id, e);
    }

    /** Lease-mode executions, whose leases the heartbeat extends. */
    List<Execution> leased() {
        List<Execution> out = new ArrayList<>();
        for (Execution e : byJobId.values()) {
            if (!e.transactional) {
                out.add(e);
            }
        }
        return out;
    }

    boolean isTracked(Execution e) {
        return byJobId.get(e.id) == e;
    }

    List<Execution> all() {
        return new ArrayList<>(byJobId.values());
    }

    public int size() {
        return byJobId.size();
    }
}
