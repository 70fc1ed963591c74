package dev.skipjack.micrometer;

import dev.skipjack.SkipjackAdmin;
import dev.skipjack.SkipjackListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * Records what a Skipjack client does in a Micrometer {@link MeterRegistry}. Register it as the
 * client's listener, and give it the client's admin for the queue-depth gauges:
 *
 * <pre>{@code
 * SkipjackMetrics metrics = new SkipjackMetrics(registry);
 * Skipjack skipjack = Skipjack.builder(dataSource).queue("default", 8).listener(metrics) ... .build();
 * metrics.monitorQueueDepth(skipjack.admin());
 * }</pre>
 *
 * <p>Meters (names in Micrometer's dot notation; Prometheus shows {@code skipjack_jobs_enqueued_total},
 * {@code skipjack_job_execution_seconds}, ...):
 * <ul>
 *   <li>{@code skipjack.jobs.enqueued}, {@code skipjack.jobs.completed}, {@code skipjack.jobs.failed}
 *       (an attempt failed, the job runs again), {@code skipjack.jobs.discarded},
 *       {@code skipjack.jobs.cancelled}, {@code skipjack.jobs.snoozed}: counters, tags {@code queue}, {@code kind};</li>
 *   <li>{@code skipjack.job.execution} (a handler's run) and {@code skipjack.job.queue.wait} (from
 *       due to started): timers, tags {@code queue}, {@code kind};</li>
 *   <li>{@code skipjack.claim.batch.size}: distribution summary of the jobs one claim round took, tag {@code queue};</li>
 *   <li>{@code skipjack.lease.rescues}: counter of jobs whose expired lease the maintenance leader rescued;</li>
 *   <li>{@code skipjack.queue.depth}: gauges of jobs per queue and state, tags {@code queue},
 *       {@code state}, read through {@link SkipjackAdmin#queues()} at most once per refresh
 *       interval (see {@link #monitorQueueDepth(SkipjackAdmin, Duration)}).</li>
 * </ul>
 *
 * <p>Counters and timers describe this process's work: sum them over the nodes. The queue depth
 * is the database's, the same on every node. The meters of a queue and kind are made when its
 * first event arrives and then reused, so an event costs a few map reads and no allocation.
 */
public final class SkipjackMetrics implements SkipjackListener {

    /** How old the queue depth may get before a read of its gauges refreshes it: 10 seconds. */
    public static final Duration DEFAULT_QUEUE_DEPTH_REFRESH = Duration.ofSeconds(10);

    private final MeterRegistry registry;
    private final LongSupplier nanoTime;
    /** Meters by queue, then kind: two map reads per event, no key object built. */
    private final ConcurrentMap<String, ConcurrentMap<String, KindMeters>> kindMeters = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, DistributionSummary> claimBatches = new ConcurrentHashMap<>();
    private final Counter leaseRescues;
    private volatile QueueDepthGauges queueDepth;

    /**
     * Metrics recorded in {@code registry}.
     *
     * @param registry where the meters are registered
     */
    public SkipjackMetrics(MeterRegistry registry) {
        this(registry, System::nanoTime);
    }

    /** With the time source the queue depth's age is measured by (tests move it). */
    SkipjackMetrics(MeterRegistry registry, LongSupplier nanoTime) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.nanoTime = nanoTime;
        this.leaseRescues = Counter.builder("skipjack.lease.rescues")
                .description("Jobs whose lease expired (worker died or stalled) that the maintenance leader returned"
                        + " to their queue or discarded")
                .baseUnit("jobs")
                .register(registry);
    }

    /**
     * Adds the {@code skipjack.queue.depth} gauges, refreshed from {@code admin} at most every
     * {@link #DEFAULT_QUEUE_DEPTH_REFRESH}.
     *
     * @param admin the client's admin, {@code skipjack.admin()}
     * @return this
     */
    public SkipjackMetrics monitorQueueDepth(SkipjackAdmin admin) {
        return monitorQueueDepth(admin, DEFAULT_QUEUE_DEPTH_REFRESH);
    }

    /**
     * Adds the {@code skipjack.queue.depth} gauges (tags {@code queue}, {@code state}): jobs per
     * queue and state, as {@link SkipjackAdmin#queues()} counts them. One query refreshes every
     * queue's values; it runs when a gauge is read and the values are older than {@code refresh},
     * so scrapes more frequent than that cost nothing, and nothing is queried between scrapes.
     * Queues get their gauges when first seen: in this call's first refresh, a later refresh, or an
     * event of this client. A refresh that fails is logged and the last values stay.
     *
     * @param admin   the client's admin, {@code skipjack.admin()}
     * @param refresh how old the values may get before a read refreshes them; at least 1 second
     * @return this
     * @throws IllegalArgumentException when {@code refresh} is under 1 second
     * @throws IllegalStateException    when called twice
     */
    public SkipjackMetrics monitorQueueDepth(SkipjackAdmin admin, Duration refresh) {
        Objects.requireNonNull(admin, "admin");
        if (refresh == null || refresh.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("refresh must be at least 1 second, got " + refresh);
        }
        QueueDepthGauges gauges;
        synchronized (this) {
            if (queueDepth != null) {
                throw new IllegalStateException("queue depth is already monitored");
            }
            gauges = new QueueDepthGauges(registry, admin, refresh, nanoTime);
            queueDepth = gauges;
        }
        kindMeters.keySet().forEach(gauges::queueSeen);
        gauges.refreshIfStale();
        return this;
    }

    @Override
    public void jobsEnqueued(String queue, String kind, int count) {
        meters(queue, kind).enqueued.increment(count);
    }

    @Override
    public void jobsClaimed(String queue, int count) {
        DistributionSummary batch = claimBatches.get(queue);
        if (batch == null) {
            batch = claimBatches.computeIfAbsent(queue, q -> DistributionSummary.builder("skipjack.claim.batch.size")
                    .description("Jobs one claim round of this node took (rounds that found none are not recorded)")
                    .baseUnit("jobs")
                    .tag("queue", q)
                    .register(registry));
        }
        batch.record(count);
    }

    @Override
    public void jobStarted(String queue, String kind, int attempt, Duration queueWait) {
        meters(queue, kind).queueWait.record(queueWait);
    }

    @Override
    public void jobFinished(String queue, String kind, int attempt, JobResult result, Duration executionTime) {
        KindMeters m = meters(queue, kind);
        m.execution.record(executionTime);
        switch (result) {
            case COMPLETED -> m.completed.increment();
            case FAILED -> m.failed.increment();
            case SNOOZED -> m.snoozed.increment();
            case DISCARDED -> m.discarded.increment();
            case CANCELLED -> m.cancelled.increment();
            default -> throw new IllegalStateException("unknown result " + result);
        }
    }

    @Override
    public void leasesRescued(int count) {
        leaseRescues.increment(count);
    }

    private KindMeters meters(String queue, String kind) {
        ConcurrentMap<String, KindMeters> ofQueue = kindMeters.get(queue);
        if (ofQueue == null) {
            ofQueue = kindMeters.computeIfAbsent(queue, q -> new ConcurrentHashMap<>());
            QueueDepthGauges gauges = queueDepth;
            if (gauges != null) {
                gauges.queueSeen(queue);
            }
        }
        KindMeters m = ofQueue.get(kind);
        return m != null ? m : ofQueue.computeIfAbsent(kind, k -> new KindMeters(registry, queue, k));
    }

    /** The meters of one queue and kind, made together so every result shows, at 0 until it happens. */
    private static final class KindMeters {
        final Counter enqueued;
        final Counter completed;
        final Counter failed;
        final Counter snoozed;
        final Counter discarded;
        final Counter cancelled;
        final Timer execution;
        final Timer queueWait;

        KindMeters(MeterRegistry registry, String queue, String kind) {
            enqueued = counter(registry, "skipjack.jobs.enqueued", "Jobs this node enqueued (duplicates of unique"
                    + " jobs not counted)", queue, kind);
            completed = counter(registry, "skipjack.jobs.completed", "Runs that completed their job", queue, kind);
            failed = counter(registry, "skipjack.jobs.failed", "Runs that failed; the job runs again", queue, kind);
            snoozed = counter(registry, "skipjack.jobs.snoozed", "Runs that snoozed their job", queue, kind);
            discarded = counter(registry, "skipjack.jobs.discarded", "Runs that ended their job discarded (given up,"
                    + " out of attempts, or unrunnable)", queue, kind);
            cancelled = counter(registry, "skipjack.jobs.cancelled", "Runs that cancelled their job", queue, kind);
            execution = Timer.builder("skipjack.job.execution")
                    .description("Time a handler's run took, from reading the args to the decided outcome")
                    .tags("queue", queue, "kind", kind)
                    .register(registry);
            queueWait = Timer.builder("skipjack.job.queue.wait")
                    .description("Time from when a job was due (its run_at) until it started on this node")
                    .tags("queue", queue, "kind", kind)
                    .register(registry);
        }

        private static Counter counter(MeterRegistry registry, String name, String description, String queue,
                                       String kind) {
            // No base unit: the name says jobs already, and Prometheus would append it again
            // (skipjack_jobs_enqueued_jobs_total).
            return Counter.builder(name).description(description)
                    .tags("queue", queue, "kind", kind).register(registry);
        }
    }
}
