package dev.skipjack.micrometer;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.RetryPolicy;
import dev.skipjack.Skipjack;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every meter of {@link SkipjackMetrics}, read by name and tags from a real registry while a client
 * runs real jobs on PostgreSQL: some completing, some failing once then completing, some discarded,
 * some cancelled; a rescued lease; queue depth sampled, not queried per read.
 */
class SkipjackMetricsTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final JobKind<Args> OK = JobKind.of("ok", Args.class);
    private static final JobKind<Args> FLAKY = JobKind.of("flaky", Args.class);
    private static final JobKind<Args> DOOMED = JobKind.of("doomed", Args.class);
    private static final JobKind<Args> UNWANTED = JobKind.of("unwanted", Args.class);

    private final DataSource dataSource = TestPostgres.dataSource();
    private final String schema = TestPostgres.freshSchema();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final List<Skipjack> clients = new ArrayList<>();

    @AfterEach
    void stopClients() {
        clients.forEach(c -> c.stop(Duration.ofSeconds(5)));
    }

    private Skipjack client(Skipjack.Builder builder) {
        Skipjack client = builder.build();
        client.migrate();
        clients.add(client);
        return client;
    }

    private Skipjack.Builder builder() {
        return Skipjack.builder(dataSource).schema(schema)
                .pollInterval(Duration.ofMillis(50))
                .promoteInterval(Duration.ofMillis(50))
                .rescueInterval(Duration.ofMillis(200));
    }

    private double count(String name, String kind) {
        Counter c = registry.find(name).tags("queue", "default", "kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
            }
            Thread.sleep(10); // a poll interval, not synchronization: the condition decides
        }
    }

    @Test
    void countsAndTimesJobsByQueueKindAndResult() throws Exception {
        SkipjackMetrics metrics = new SkipjackMetrics(registry);
        Skipjack client = client(builder().listener(metrics).queue("default", 4)
                .handler(OK, job -> Outcome.complete())
                .handler(FLAKY, KindOptions.defaults().withRetryPolicy(RetryPolicy.fixed(Duration.ZERO)), job -> {
                    if (job.attempt() == 1) {
                        throw new IllegalStateException("fails once");
                    }
                    return Outcome.complete();
                })
                .handler(DOOMED, job -> Outcome.discard("never runnable"))
                .handler(UNWANTED, job -> Outcome.cancel("not wanted")));

        client.enqueueAll(List.of(JobRequest.of(OK, new Args(1)), JobRequest.of(OK, new Args(2)),
                JobRequest.of(OK, new Args(3))));
        client.enqueue(FLAKY, new Args(4));
        client.enqueue(FLAKY, new Args(5));
        client.enqueue(DOOMED, new Args(6));
        // Due a minute ago: its wait in the queue is at least that.
        client.enqueue(UNWANTED, new Args(7), EnqueueOptions.defaults().withRunAt(Instant.now().minusSeconds(60)));
        client.start();

        await("every job to reach its end", () -> count("skipjack.jobs.completed", "ok") == 3
                && count("skipjack.jobs.completed", "flaky") == 2
                && count("skipjack.jobs.discarded", "doomed") == 1
                && count("skipjack.jobs.cancelled", "unwanted") == 1);

        assertThat(count("skipjack.jobs.enqueued", "ok")).isEqualTo(3);
        assertThat(count("skipjack.jobs.enqueued", "flaky")).isEqualTo(2);
        assertThat(count("skipjack.jobs.failed", "flaky")).isEqualTo(2);
        assertThat(count("skipjack.jobs.failed", "ok")).isZero();
        assertThat(count("skipjack.jobs.completed", "doomed")).isZero();
        assertThat(count("skipjack.jobs.snoozed", "ok")).isZero();

        Timer okRuns = registry.get("skipjack.job.execution").tags("queue", "default", "kind", "ok").timer();
        assertThat(okRuns.count()).isEqualTo(3);
        assertThat(registry.get("skipjack.job.execution").tags("kind", "flaky").timer().count()).isEqualTo(4);
        assertThat(registry.get("skipjack.job.queue.wait").tags("kind", "flaky").timer().count()).isEqualTo(4);
        Timer overdue = registry.get("skipjack.job.queue.wait").tags("queue", "default", "kind", "unwanted").timer();
        assertThat(overdue.count()).isEqualTo(1);
        assertThat(overdue.totalTime(TimeUnit.SECONDS)).isGreaterThanOrEqualTo(59);

        // 3 ok + 4 flaky + 1 doomed + 1 unwanted runs, each claimed by some round.
        DistributionSummary batches = registry.get("skipjack.claim.batch.size").tags("queue", "default").summary();
        assertThat(batches.totalAmount()).isEqualTo(9);
        assertThat(batches.count()).isBetween(1L, 9L);
        assertThat(registry.get("skipjack.lease.rescues").counter().count()).isZero();
    }

    @Test
    void countsRescuedLeases() throws Exception {
        SkipjackMetrics metrics = new SkipjackMetrics(registry);
        Skipjack client = client(builder().listener(metrics).queue("other", 1));
        // Two jobs as a worker that died would have left them: running, their lease over.
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            for (int i = 0; i < 2; i++) {
                s.executeUpdate("INSERT INTO " + client.jobsTable() + " (queue, kind, args, state, attempt,"
                        + " max_attempts, claimed_by, attempted_at, lease_until) VALUES ('default', 'gone', '{}',"
                        + " 'running', 1, 5, 'dead-worker', now() - interval '30 seconds', now() - interval '10 seconds')");
            }
        }
        client.start();
        Counter rescues = registry.get("skipjack.lease.rescues").counter();
        await("both expired leases to be rescued", () -> rescues.count() == 2);
    }

    @Test
    void queueDepthIsReadAtMostOncePerRefreshInterval() throws Exception {
        AtomicLong now = new AtomicLong();
        SkipjackMetrics metrics = new SkipjackMetrics(registry, now::get);
        Skipjack client = client(builder().listener(metrics));
        for (int i = 0; i < 3; i++) {
            client.enqueue(OK, new Args(i), EnqueueOptions.defaults().withQueue("reports"));
        }
        client.enqueue(OK, new Args(9), EnqueueOptions.defaults().withQueue("later").withDelay(Duration.ofHours(1)));

        metrics.monitorQueueDepth(client.admin(), Duration.ofSeconds(10));
        Gauge available = registry.get("skipjack.queue.depth").tags("queue", "reports", "state", "available").gauge();
        assertThat(available.value()).isEqualTo(3);
        assertThat(registry.get("skipjack.queue.depth").tags("queue", "reports", "state", "running").gauge().value())
                .isZero();
        assertThat(registry.get("skipjack.queue.depth").tags("queue", "later", "state", "scheduled").gauge().value())
                .isEqualTo(1);

        client.enqueue(OK, new Args(3), EnqueueOptions.defaults().withQueue("reports"));
        client.enqueue(OK, new Args(4), EnqueueOptions.defaults().withQueue("fresh"));
        now.addAndGet(Duration.ofSeconds(9).toNanos());
        // Within the interval: the last values, no query (the database holds 4 by now).
        assertThat(available.value()).isEqualTo(3);

        now.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(available.value()).isEqualTo(4);
        // The refresh found the new queue (its enqueue had given it gauges already, at 0 until then).
        assertThat(registry.get("skipjack.queue.depth").tags("queue", "fresh", "state", "available").gauge().value())
                .isEqualTo(1);
    }
}
