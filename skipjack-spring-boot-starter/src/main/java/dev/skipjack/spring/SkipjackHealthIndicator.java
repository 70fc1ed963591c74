package dev.skipjack.spring;

import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;
import dev.skipjack.Skipjack;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Skipjack's health: the database reachable (one read of the queues through
 * {@link dev.skipjack.SkipjackAdmin#queues()}; an exception is DOWN with its message), this node's
 * workers running, and per queue its job counts and whether a running node serves it.
 *
 * <p>UP when the database answers and the workers run, or this application only enqueues; DOWN
 * when the database does not answer, or the workers should run and do not (not yet started, or
 * stopped). Details:
 * <pre>
 * database: "reachable"
 * workers:  "running" | "stopped" | "disabled (enqueue only)"
 * workerId: this node's worker id
 * queues:   { name: { available, running, scheduled, retryable, waiting, servedHere, servedByNodes, paused } }
 * </pre>
 * The age of a queue's oldest available job is not reported: the core's admin API does not give it yet.
 */
public class SkipjackHealthIndicator extends AbstractHealthIndicator {

    private static final List<JobState> WAITING_OR_ACTIVE = List.of(JobState.AVAILABLE, JobState.RUNNING,
            JobState.SCHEDULED, JobState.RETRYABLE, JobState.WAITING);

    private final Skipjack skipjack;
    private final SkipjackWorkers workers;

    /**
     * The health of {@code skipjack} and its {@code workers}.
     *
     * @param skipjack the client
     * @param workers  the workers' lifecycle
     */
    public SkipjackHealthIndicator(Skipjack skipjack, SkipjackWorkers workers) {
        super("Skipjack health check failed");
        this.skipjack = Objects.requireNonNull(skipjack, "skipjack");
        this.workers = Objects.requireNonNull(workers, "workers");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<QueueInfo> queues = skipjack.admin().queues();
        String workerState = !workers.isEnabled() ? "disabled (enqueue only)" : workers.isRunning() ? "running" : "stopped";
        boolean up = !workers.isEnabled() || workers.isRunning();
        Map<String, Object> perQueue = new LinkedHashMap<>();
        for (QueueInfo queue : queues) {
            Map<String, Object> details = new LinkedHashMap<>();
            for (JobState state : WAITING_OR_ACTIVE) {
                details.put(state.name().toLowerCase(Locale.ROOT), queue.count(state));
            }
            details.put("servedHere", queue.servedBy().contains(skipjack.workerId()));
            details.put("servedByNodes", queue.servedBy().size());
            details.put("paused", queue.paused());
            perQueue.put(queue.name(), details);
        }
        (up ? builder.up() : builder.down())
                .withDetail("database", "reachable")
                .withDetail("workers", workerState)
                .withDetail("workerId", skipjack.workerId())
                .withDetail("queues", perQueue);
    }
}
