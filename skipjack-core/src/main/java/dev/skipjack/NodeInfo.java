package dev.skipjack;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A started client as operators see it: its worker id, the queues it serves, when it started and
 * last said it was alive, and the jobs it runs now with how long each has been running. Times are
 * the database's.
 */
public record NodeInfo(String workerId, String queues, Instant startedAt, Instant lastSeenAt, List<RunningJob> running) {

    /** The names of the queues this node serves ({@code queues} is "name:concurrency, ..."). */
    public List<String> queueNames() {
        if (queues.isBlank()) {
            return List.of();
        }
        return java.util.Arrays.stream(queues.split(",\\s*")).map(q -> q.substring(0, q.lastIndexOf(':') < 0 ? q.length()
                : q.lastIndexOf(':'))).toList();
    }

    /** A job a node runs now; {@code runningFor} is measured on the database clock. */
    public record RunningJob(long id, String queue, String kind, Instant startedAt, Duration runningFor) {
    }
}
