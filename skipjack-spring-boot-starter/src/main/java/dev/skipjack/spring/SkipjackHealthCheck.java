package dev.skipjack.spring;

import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;
import dev.skipjack.Skipjack;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Skipjack's health, apart from Spring Boot's health API: Boot 3 has it in
 * {@code org.springframework.boot.actuate.health}, Boot 4 in
 * {@code org.springframework.boot.health.contributor}, so one indicator per Boot
 * ({@link SkipjackHealthIndicator}, {@link SkipjackBoot4HealthIndicator}) wraps this one check and
 * both report the same status and details.
 */
final class SkipjackHealthCheck {

    private static final List<JobState> WAITING_OR_ACTIVE = List.of(JobState.AVAILABLE, JobState.RUNNING,
            JobState.SCHEDULED, JobState.RETRYABLE, JobState.WAITING);

    /** The outcome: UP or DOWN, and the details in the order they are shown. */
    record Result(boolean up, Map<String, Object> details) {
    }

    private final Skipjack skipjack;
    private final SkipjackWorkers workers;

    SkipjackHealthCheck(Skipjack skipjack, SkipjackWorkers workers) {
        this.skipjack = Objects.requireNonNull(skipjack, "skipjack");
        this.workers = Objects.requireNonNull(workers, "workers");
    }

    /**
     * Reads the queues and their oldest available jobs; an exception (the database does not answer) propagates, and each Boot's
     * {@code AbstractHealthIndicator} turns it into DOWN with its message.
     */
    Result check() {
        List<QueueInfo> queues = skipjack.admin().queues();
        Map<String, java.time.Duration> oldestAvailable = skipjack.admin().oldestAvailableAge();
        String workerState = !workers.isEnabled() ? "disabled (enqueue only)" : workers.isRunning() ? "running" : "stopped";
        boolean up = !workers.isEnabled() || workers.isRunning();
        Map<String, Object> perQueue = new LinkedHashMap<>();
        for (QueueInfo queue : queues) {
            Map<String, Object> details = new LinkedHashMap<>();
            for (JobState state : WAITING_OR_ACTIVE) {
                details.put(state.name().toLowerCase(Locale.ROOT), queue.count(state));
            }
            java.time.Duration age = oldestAvailable.get(queue.name());
            // Seconds the oldest available job has been due (database clock): 0 when none waits.
            details.put("oldestAvailableSeconds", age == null ? 0.0 : age.toMillis() / 1000.0);
            details.put("servedHere", queue.servedBy().contains(skipjack.workerId()));
            details.put("servedByNodes", queue.servedBy().size());
            details.put("paused", queue.paused());
            perQueue.put(queue.name(), details);
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("database", "reachable");
        details.put("workers", workerState);
        details.put("workerId", skipjack.workerId());
        details.put("queues", perQueue);
        return new Result(up, details);
    }
}
