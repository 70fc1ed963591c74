package dev.skipjack;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A queue as operators see it: whether it is paused and how many jobs it holds in each state.
 *
 * @param pausedAt when it was paused, or null when it runs
 * @param counts   jobs per state; every state is present, 0 when empty
 * @param servedBy worker ids of the nodes running now that serve this queue; empty when none does,
 *                 and then its available jobs wait for a node to serve it
 */
public record QueueInfo(String name, Instant pausedAt, Map<JobState, Long> counts, List<String> servedBy) {

    public QueueInfo {
        counts = Map.copyOf(counts);
        servedBy = List.copyOf(servedBy);
    }

    /** Whether a node running now serves this queue. */
    public boolean served() {
        return !servedBy.isEmpty();
    }

    public boolean paused() {
        return pausedAt != null;
    }

    public long count(JobState state) {
        return counts.getOrDefault(state, 0L);
    }

    public long total() {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
