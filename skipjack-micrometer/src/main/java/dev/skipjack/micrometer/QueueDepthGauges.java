package dev.skipjack.micrometer;

import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;
import dev.skipjack.SkipjackAdmin;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The {@code skipjack.queue.depth} gauges: jobs per queue and state from one
 * {@link SkipjackAdmin#queues()} query, kept as a snapshot and refreshed by a gauge read only when
 * older than the refresh interval. One reader refreshes at a time; the others read the last
 * snapshot meanwhile rather than queue up behind the query.
 */
final class QueueDepthGauges {

    private static final Logger log = LoggerFactory.getLogger(QueueDepthGauges.class);

    private final MeterRegistry registry;
    private final SkipjackAdmin admin;
    private final long refreshNanos;
    private final LongSupplier nanoTime;
    private final ReentrantLock refreshing = new ReentrantLock();
    private final Set<String> queuesWithGauges = ConcurrentHashMap.newKeySet();
    /** Counts by queue and state as of the last refresh; replaced whole, never changed. */
    private volatile Map<String, Map<JobState, Long>> depth = Map.of();
    private volatile long refreshedAtNanos;
    private volatile boolean everRefreshed;
    /** Whether the last refresh failed: a run of failures is logged once. */
    private volatile boolean failing;

    QueueDepthGauges(MeterRegistry registry, SkipjackAdmin admin, Duration refresh, LongSupplier nanoTime) {
        this.registry = registry;
        this.admin = admin;
        this.refreshNanos = refresh.toNanos();
        this.nanoTime = nanoTime;
    }

    /** Registers the queue's gauges, one per state, unless it has them. */
    void queueSeen(String queue) {
        if (!queuesWithGauges.add(queue)) {
            return;
        }
        for (JobState state : JobState.values()) {
            Gauge.builder("skipjack.queue.depth", this, g -> g.depth(queue, state))
                    .description("Jobs in this queue and state, as of the last refresh")
                    .baseUnit("jobs")
                    .tags("queue", queue, "state", state.name().toLowerCase(Locale.ROOT))
                    .strongReference(true)
                    .register(registry);
        }
    }

    private double depth(String queue, JobState state) {
        refreshIfStale();
        Map<JobState, Long> counts = depth.get(queue);
        Long n = counts == null ? null : counts.get(state);
        return n == null ? 0 : n;
    }

    /** Reads the counts again if the snapshot is older than the interval and no other thread is at it. */
    void refreshIfStale() {
        if (everRefreshed && nanoTime.getAsLong() - refreshedAtNanos < refreshNanos) {
            return;
        }
        if (!refreshing.tryLock()) {
            return;
        }
        try {
            if (everRefreshed && nanoTime.getAsLong() - refreshedAtNanos < refreshNanos) {
                return;
            }
            try {
                List<QueueInfo> queues = admin.queues();
                Map<String, Map<JobState, Long>> fresh = new HashMap<>();
                for (QueueInfo q : queues) {
                    fresh.put(q.name(), q.counts());
                }
                depth = fresh;
                if (failing) {
                    log.info("reading Skipjack's queue depth works again");
                }
                failing = false;
                fresh.keySet().forEach(this::queueSeen);
            } catch (RuntimeException e) {
                // The last values stay; the next try waits a whole interval, so a database that is
                // down is not asked on every scrape.
                if (!failing) {
                    log.warn("reading Skipjack's queue depth failed; its gauges keep their last values: {}", e.toString());
                }
                failing = true;
            }
            refreshedAtNanos = nanoTime.getAsLong();
            everRefreshed = true;
        } finally {
            refreshing.unlock();
        }
    }
}
