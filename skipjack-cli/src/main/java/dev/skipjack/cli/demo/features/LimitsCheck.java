package dev.skipjack.cli.demo.features;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobQuery;
import dev.skipjack.JobRequest;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * Global concurrency limits (F-12): a kind limited to {@link #LIMIT} jobs at once per customer,
 * {@link #PARTITIONS} customers of {@link #JOBS_PER_PARTITION} jobs, run by {@link #NODES} clients
 * with more workers between them than the limits allow. Judged from the database: every job
 * completed, each row holds the key {@code kind:<kind>/<customer>}, and per stored key the jobs'
 * run intervals ({@code attempted_at} to {@code finished_at}, see {@link StoredRuns}) never overlap
 * more than the limit, and do reach it for at least one customer (the limit is used, not merely
 * obeyed by running one at a time).
 */
public class LimitsCheck implements FeatureCheck {

    public record Sync(String run, String customer, int n) {
    }

    public static final int LIMIT = 2;
    public static final JobKind<Sync> SYNC = JobKind.of("features-limits-sync", Sync.class)
            .limitedTo(LIMIT, Sync::customer);
    static final String QUEUE = "features-limits";
    static final List<String> PARTITIONS = List.of("acme", "globex", "initech");
    static final int JOBS_PER_PARTITION = 12;
    static final int NODES = 3;
    /** Per node: 3 nodes x 4 = 12 workers for 3 x 2 = 6 slots, so the limit, not the workers, decides. */
    static final int WORKERS_PER_NODE = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "limits";
    }

    @Override
    public Set<String> kinds() {
        return Set.of(SYNC.name());
    }

    /** The key a customer's jobs must hold, as stored. */
    static String keyOf(String customer) {
        return "kind:" + SYNC.name() + "/" + customer;
    }

    @Override
    public CheckResult run(FeatureContext context) throws Exception {
        String run = context.runToken();
        String ofThisRun = "{\"run\": \"" + run + "\"}";
        int total = PARTITIONS.size() * JOBS_PER_PARTITION;
        List<Skipjack> nodes = new ArrayList<>();
        try (Skipjack producer = context.client("limits-producer").kind(SYNC).build()) {
            try {
                for (int i = 1; i <= NODES; i++) {
                    Skipjack node = context.client("limits-node-" + i).queue(QUEUE, WORKERS_PER_NODE)
                            .handler(SYNC, job -> {
                                // The job's own work: 20-40 ms, so that runs of one customer overlap when allowed to.
                                Thread.sleep(ThreadLocalRandom.current().nextInt(20, 41));
                                return Outcome.complete();
                            })
                            .build();
                    nodes.add(node);
                    node.start();
                }
                List<JobRequest> requests = new ArrayList<>();
                EnqueueOptions queue = EnqueueOptions.defaults().withQueue(QUEUE);
                for (int n = 1; n <= JOBS_PER_PARTITION; n++) {
                    for (String customer : PARTITIONS) {
                        requests.add(JobRequest.of(SYNC, new Sync(run, customer, n), queue));
                    }
                }
                producer.enqueueAll(requests);
                boolean finished = context.await(() -> producer.admin().jobs(JobQuery.all()
                                .kind(SYNC.name()).argsContain(ofThisRun).state(JobState.COMPLETED)
                                .limit(JobQuery.MAX_LIMIT)).jobs().size() >= total);
                if (!finished) {
                    return CheckResult.of(false, String.format(Locale.ROOT,
                            "limits: %d jobs limited to %d per customer did not all complete within %d s (%s)",
                            total, LIMIT, context.timeout().toSeconds(), producer.countByState()));
                }
            } finally {
                for (Skipjack node : nodes) {
                    node.close();
                }
            }
            beforeVerifying(producer, context);
            return verify(StoredRuns.read(producer, context, SYNC.name(), ofThisRun), total);
        }
    }

    /**
     * Called after the nodes stopped, before the database is judged. Does nothing here; a test
     * overrides it to put wrong data in the database and see the check fail.
     */
    protected void beforeVerifying(Skipjack client, FeatureContext context) throws Exception {
    }

    private static CheckResult verify(StoredRuns runs, int total) {
        long completed = runs.jobs().stream().filter(s -> s.job().state() == JobState.COMPLETED).count();
        long wrongKey = runs.jobs().stream()
                .filter(s -> !keyOf(customerOf(s)).equals(s.concurrencyKey())).count();
        Map<String, Integer> overlap = new LinkedHashMap<>();
        runs.byKey().forEach((key, jobs) -> overlap.put(key, StoredRuns.maxOverlap(jobs)));
        int acrossCustomers = StoredRuns.maxOverlap(runs.jobs());
        boolean neverExceeded = overlap.values().stream().allMatch(most -> most <= LIMIT);
        boolean used = overlap.values().stream().anyMatch(most -> most == LIMIT);
        boolean passed = runs.jobs().size() == total && completed == total && wrongKey == 0
                && runs.withoutTimes() == 0 && runs.ranMoreThanOnce() == 0 && overlap.size() == PARTITIONS.size()
                && neverExceeded && used;
        String figures = overlap.entrySet().stream()
                .map(e -> e.getKey().substring(e.getKey().lastIndexOf('/') + 1) + " " + e.getValue())
                .collect(Collectors.joining(", "));
        return CheckResult.of(passed, String.format(Locale.ROOT,
                "limits: %d nodes ran %d jobs limited to %d at once per customer: %d completed; most running at once"
                        + " per customer, from the stored attempt and finish times: %s (%s); all customers together %d%s%s%s",
                NODES, total, LIMIT, completed, figures,
                !neverExceeded ? "limit EXCEEDED" : used ? "never over the limit, and the whole limit used"
                        : "never over the limit, but NEVER USED WHOLE",
                acrossCustomers,
                wrongKey == 0 ? "" : "; " + wrongKey + " job(s) without the key kind:" + SYNC.name() + "/<customer>",
                runs.ranMoreThanOnce() == 0 ? "" : "; " + runs.ranMoreThanOnce() + " job(s) ran more than once",
                runs.withoutTimes() == 0 ? "" : "; " + runs.withoutTimes() + " job(s) without a start or finish time"));
    }

    /** The customer in the job's stored args. */
    private static String customerOf(StoredRuns.Stored s) {
        try {
            return JSON.readTree(s.job().argsJson()).path("customer").asText();
        } catch (Exception e) {
            return "?";
        }
    }

}
