package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-12, rate limits: a kind (or a key) limited to N starts per period never has more than N of its
 * jobs start within any period, across nodes, and uses its whole rate. A start is the claim
 * (the job's {@code attempted_at}, on the database clock), which is what the windows below are
 * computed from; retries wait to be admitted again, so they count too.
 */
class RateLimitTest extends EveryBackendTest {

    record Call(String account, int n) {
    }

    static final Duration WAIT = Duration.ofSeconds(60);

    private void startNodes(JobKind<Call> kind, JobHandler<Call> handler) {
        for (int i = 0; i < 3; i++) {
            client(builder().workerId("node-" + i).queue(new QueueOptions("default", 6, 4)).handler(kind, handler)).start();
        }
    }

    /** The most starts within any window of {@code period} (a start at t counts in (t - period, t]). */
    static int mostStartsPerWindow(List<Instant> starts, Duration period) {
        List<Instant> sorted = new ArrayList<>(starts);
        Collections.sort(sorted);
        int most = 0;
        for (int i = 0; i < sorted.size(); i++) {
            Instant end = sorted.get(i);
            int in = 0;
            for (int j = 0; j <= i; j++) {
                if (sorted.get(j).isAfter(end.minus(period))) {
                    in++;
                }
            }
            most = Math.max(most, in);
        }
        return most;
    }

    private List<Instant> attemptStarts(Skipjack s, List<Long> ids) {
        List<Instant> starts = new ArrayList<>();
        for (long id : ids) {
            starts.add(s.find(id).orElseThrow().attemptedAt());
        }
        return starts;
    }

    @Test
    void aRateLimitIsNeverExceededAcrossNodesAndIsUsedWhole() {
        Duration period = Duration.ofMillis(400);
        JobKind<Call> call = JobKind.of("call", Call.class).rateLimitedTo(4, period);
        startNodes(call, job -> Outcome.complete());
        Skipjack producer = client(builder().kind(call));
        List<JobRequest> requests = new ArrayList<>();
        for (int n = 0; n < 16; n++) {
            requests.add(JobRequest.of(call, new Call("a", n)));
        }
        List<Long> ids = producer.enqueueAll(requests);
        await("16 jobs completed", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'completed'") == 16);

        List<Instant> starts = attemptStarts(producer, ids);
        int most = mostStartsPerWindow(starts, period);
        assertThat(most).as("most starts within %s", period).isEqualTo(4);
        Duration spread = Duration.between(Collections.min(starts), Collections.max(starts));
        assertThat(spread).as("16 starts at 4 per %s need three full periods", period)
                .isGreaterThanOrEqualTo(period.multipliedBy(3));
    }

    @Test
    void partitionsAndEnqueueKeysHaveTheirOwnRates() {
        Duration period = Duration.ofMillis(500);
        JobKind<Call> call = JobKind.of("call", Call.class).rateLimitedTo(2, period, Call::account);
        JobKind<Call> report = JobKind.of("report", Call.class);
        for (int i = 0; i < 2; i++) {
            client(builder().workerId("node-" + i).queue(new QueueOptions("default", 6, 4))
                    .handler(call, job -> Outcome.complete()).handler(report, job -> Outcome.complete())).start();
        }
        Skipjack producer = client(builder().kind(call).kind(report));
        List<Long> a = new ArrayList<>();
        List<Long> b = new ArrayList<>();
        List<Long> api = new ArrayList<>();
        for (int n = 0; n < 6; n++) {
            a.add(producer.enqueue(call, new Call("a", n)));
            b.add(producer.enqueue(call, new Call("b", n)));
            api.add(producer.enqueue(report, new Call("x", n), EnqueueOptions.defaults().withRateLimit("api", 3, period)));
        }
        await("18 jobs completed", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'completed'") == 18);
        assertThat(mostStartsPerWindow(attemptStarts(producer, a), period)).as("account a").isEqualTo(2);
        assertThat(mostStartsPerWindow(attemptStarts(producer, b), period)).as("account b").isEqualTo(2);
        assertThat(mostStartsPerWindow(attemptStarts(producer, api), period)).as("key api").isEqualTo(3);
        List<Instant> both = new ArrayList<>(attemptStarts(producer, a));
        both.addAll(attemptStarts(producer, b));
        assertThat(mostStartsPerWindow(both, period)).as("the accounts' rates are apart").isGreaterThan(2);
    }

    /**
     * The rate is counted from the jobs' starts, so retention keeps a finished rate-limited job
     * while its start still counts: with completed jobs pruned at once, the pruner deleted the
     * first job's row within its period and the next job was admitted, one start per prune round
     * instead of one per hour.
     */
    @Test
    void retentionKeepsAStartThatStillCountsAgainstTheRate() {
        JobKind<Call> call = JobKind.of("call", Call.class).rateLimitedTo(1, Duration.ofHours(1));
        JobKind<Call> plain = JobKind.of("plain", Call.class);
        List<Long> started = Collections.synchronizedList(new ArrayList<>());
        Skipjack node = client(builder().retention(JobState.COMPLETED, Duration.ZERO).pruneInterval(Duration.ofMillis(100))
                .queue("default", 4)
                .handler(call, job -> {
                    started.add(job.id());
                    return Outcome.complete();
                })
                .handler(plain, job -> Outcome.complete()));
        node.start();
        long first = node.enqueue(call, new Call("a", 1));
        long second = node.enqueue(call, new Call("a", 2));
        await("the first call ran", WAIT, () -> started.contains(first));
        await("the first call completed", WAIT, () -> node.find(first).orElseThrow().state() == JobState.COMPLETED);

        // A job that completes after the first call is pruned: the pruner ran with the first call prunable by age.
        long later = node.enqueue(plain, new Call("b", 1));
        await("a later completed job pruned", WAIT, () -> node.find(later).isEmpty());
        assertThat(node.find(first)).as("the first call, kept while its start counts").isPresent();
        JobRow.holdsFor("the second call waits for the next hour", Duration.ofMillis(600),
                () -> !started.contains(second) && node.find(second).orElseThrow().state() == JobState.WAITING);
    }

    @Test
    void aRetryWaitsForTheRateLikeANewStart() {
        Duration period = Duration.ofSeconds(1);
        JobKind<Call> call = JobKind.of("call", Call.class).rateLimitedTo(1, period);
        Map<Integer, Instant> startOfAttempt = new ConcurrentHashMap<>();
        Skipjack[] producer = new Skipjack[1];
        startNodes(call, job -> {
            startOfAttempt.put(job.attempt(), producer[0].find(job.id()).orElseThrow().attemptedAt());
            return job.attempt() == 1 ? Outcome.retry(Duration.ZERO, "the API said 503") : Outcome.complete();
        });
        producer[0] = client(builder().kind(call));
        long id = producer[0].enqueue(call, new Call("a", 1));
        awaitState(producer[0], id, JobState.COMPLETED, WAIT);
        assertThat(Duration.between(startOfAttempt.get(1), startOfAttempt.get(2)))
                .as("the retry, due at once, started only when the rate allowed it").isGreaterThanOrEqualTo(period);
    }

    @Test
    void aFailedAttemptOfARateLimitedJobWaitsToBeAdmittedAgain() {
        Duration period = Duration.ofMinutes(1);
        JobKind<Call> call = JobKind.of("call", Call.class).rateLimitedTo(1, period);
        startNodes(call, job -> Outcome.retry(Duration.ZERO, "the API said 503"));
        Skipjack producer = client(builder().kind(call));
        long id = producer.enqueue(call, new Call("a", 1));
        await("the first attempt to end", WAIT, () -> producer.find(id).orElseThrow().attempt() == 1
                && producer.find(id).orElseThrow().state() == JobState.WAITING);
        ConcurrencyKeyInfo key = producer.admin().concurrencyKeys().get(0);
        assertThat(key.key()).isEqualTo("kind-rate:call");
        assertThat(key.period()).isEqualTo(period);
        assertThat(key.waiting()).isEqualTo(1);
        assertThat(key.isFull()).isFalse();
    }

    @Test
    void badRatesAreRefusedAtTheCallSite() {
        assertThatThrownBy(() -> JobKind.of("call", Call.class).rateLimitedTo(0, Duration.ofSeconds(1)))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("between 1 and");
        assertThatThrownBy(() -> JobKind.of("call", Call.class).rateLimitedTo(1, null))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("must not be null");
        assertThatThrownBy(() -> JobKind.of("call", Call.class).rateLimitedTo(1, Duration.ZERO))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("between 1 ms and");
        assertThatThrownBy(() -> JobKind.of("call", Call.class).rateLimitedTo(1, Duration.ofDays(2)))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("between 1 ms and");
        assertThatThrownBy(() -> JobKind.of("call", Call.class).rateLimitedTo(1, Duration.ofSeconds(1), null))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("partition function");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withRateLimit("api", 0, Duration.ofSeconds(1)))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("between 1 and");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withRateLimit("api", 1, Duration.ofMillis(-5)))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("between 1 ms and");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withRateLimit("", 1, Duration.ofSeconds(1)))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withSequenceKey("s").withRateLimit("api", 1, Duration.ofSeconds(1)))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("one concurrency key");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withRateLimit("api", 1, Duration.ofSeconds(1)).withSequenceKey("s"))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("one concurrency key");

        JobKind<Call> call = JobKind.of("call", Call.class).rateLimitedTo(2, Duration.ofSeconds(1));
        Skipjack producer = client(builder().kind(call));
        assertThatThrownBy(() -> producer.enqueue(call, new Call("a", 1),
                EnqueueOptions.defaults().withRateLimit("api", 1, Duration.ofSeconds(1))))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("rateLimitedTo");
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isZero();
    }
}
