package dev.skipjack.cli.demo.features;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ordered keys (F-13): {@link #KEYS} sequence keys of {@link #JOBS_PER_KEY} jobs each, enqueued
 * interleaved (each round visits the keys in a shuffled order), run by {@link #NODES} clients with
 * workers to spare. A later job of a key gets a more urgent priority than an earlier one, so
 * admitting by priority instead of enqueue order would show. Judged from the database: every job
 * completed, each row holds {@code seq:<key>}, and per key, in id (enqueue) order, each job's stored
 * number follows the previous one and its attempt started no earlier than the previous one finished
 * ({@code attempted_at} and {@code finished_at}, see {@link StoredRuns}): started in enqueue order,
 * never two at once.
 */
public class OrderedCheck implements FeatureCheck {

    public record Step(String run, String key, int n) {
    }

    public static final JobKind<Step> STEP = JobKind.of("features-ordered-step", Step.class);
    static final String QUEUE = "features-ordered";
    static final int KEYS = 4;
    static final int JOBS_PER_KEY = 8;
    static final int NODES = 3;
    static final int WORKERS_PER_NODE = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "ordered";
    }

    @Override
    public Set<String> kinds() {
        return Set.of(STEP.name());
    }

    /**
     * The sequence key of the {@code i}th order. The same in every run (a new run deletes the last
     * one's jobs first): each key ever used keeps a row in the keys' lock table.
     */
    public static String keyOf(int i) {
        return "features-order-" + i;
    }

    @Override
    public CheckResult run(FeatureContext context) throws Exception {
        String run = context.runToken();
        String ofThisRun = "{\"run\": \"" + run + "\"}";
        int total = KEYS * JOBS_PER_KEY;
        List<Skipjack> nodes = new ArrayList<>();
        try (Skipjack producer = context.client("ordered-producer").kind(STEP).build()) {
            try {
                for (int i = 1; i <= NODES; i++) {
                    Skipjack node = context.client("ordered-node-" + i).queue(QUEUE, WORKERS_PER_NODE)
                            .handler(STEP, job -> {
                                // Steps take different times, so a step let through early would overtake.
                                Thread.sleep(ThreadLocalRandom.current().nextInt(5, 31));
                                return Outcome.complete();
                            })
                            .build();
                    nodes.add(node);
                    node.start();
                }
                // Enqueued one by one while the nodes run, the keys interleaved in a different order each round.
                List<Integer> keys = new ArrayList<>();
                for (int i = 1; i <= KEYS; i++) {
                    keys.add(i);
                }
                Random shuffle = new Random();
                for (int n = 1; n <= JOBS_PER_KEY; n++) {
                    Collections.shuffle(keys, shuffle);
                    for (int i : keys) {
                        producer.enqueue(STEP, new Step(run, keyOf(i), n), EnqueueOptions.defaults()
                                .withQueue(QUEUE).withPriority(JOBS_PER_KEY - n).withSequenceKey(keyOf(i)));
                    }
                }
                boolean finished = context.await(() -> producer.admin().jobs(JobQuery.all().kind(STEP.name())
                        .argsContain(ofThisRun).state(JobState.COMPLETED).limit(JobQuery.MAX_LIMIT)).jobs().size() >= total);
                if (!finished) {
                    return CheckResult.of(false, String.format(Locale.ROOT,
                            "ordered: %d jobs of %d sequence keys did not all complete within %d s (%s)",
                            total, KEYS, context.timeout().toSeconds(), producer.countByState()));
                }
            } finally {
                for (Skipjack node : nodes) {
                    node.close();
                }
            }
            beforeVerifying(producer, context);
            return verify(StoredRuns.read(producer, context, STEP.name(), ofThisRun), total);
        }
    }

    /**
     * Called after the nodes stopped, before the database is judged. Does nothing here; a test
     * overrides it to put wrong data in the database and see the check fail.
     */
    protected void beforeVerifying(Skipjack client, FeatureContext context) throws Exception {
    }

    private static CheckResult verify(StoredRuns runs, int total) throws Exception {
        long completed = runs.jobs().stream().filter(s -> s.job().state() == JobState.COMPLETED).count();
        long wrongKey = 0;
        int outOfOrder = 0;
        int overlapping = 0;
        List<String> firstProblems = new ArrayList<>();
        Map<String, List<StoredRuns.Stored>> byKey = runs.byKey();
        for (Map.Entry<String, List<StoredRuns.Stored>> key : byKey.entrySet()) {
            StoredRuns.Stored previous = null;
            for (StoredRuns.Stored s : key.getValue()) {
                if (!("seq:" + JSON.readTree(s.job().argsJson()).path("key").asText()).equals(s.concurrencyKey())) {
                    wrongKey++;
                }
                if (previous != null) {
                    int n = JSON.readTree(s.job().argsJson()).path("n").asInt();
                    int previousN = JSON.readTree(previous.job().argsJson()).path("n").asInt();
                    boolean inOrder = n > previousN && s.start() != null && previous.start() != null
                            && s.start().isAfter(previous.start());
                    boolean afterPrevious = s.start() != null && previous.end() != null
                            && !s.start().isBefore(previous.end());
                    if (!inOrder) {
                        outOfOrder++;
                    }
                    if (!afterPrevious) {
                        overlapping++;
                    }
                    if ((!inOrder || !afterPrevious) && firstProblems.size() < 3) {
                        firstProblems.add(String.format(Locale.ROOT, "job %d (step %d) started %s, job %d (step %d)"
                                        + " ran %s..%s", s.job().id(), n, s.start(), previous.job().id(), previousN,
                                previous.start(), previous.end()));
                    }
                }
                previous = s;
            }
        }
        int acrossKeys = StoredRuns.maxOverlap(runs.jobs());
        long nodesUsed = runs.jobs().stream().map(s -> s.job().claimedBy()).filter(java.util.Objects::nonNull)
                .distinct().count();
        boolean passed = runs.jobs().size() == total && completed == total && wrongKey == 0 && byKey.size() == KEYS
                && runs.withoutTimes() == 0 && runs.ranMoreThanOnce() == 0 && outOfOrder == 0 && overlapping == 0;
        return CheckResult.of(passed, String.format(Locale.ROOT,
                "ordered: %d sequence keys of %d jobs, enqueued interleaved, later jobs more urgent, run by %d nodes:"
                        + " %d completed; from the stored attempt and finish times, per key: %d started out of enqueue"
                        + " order, %d started before the previous one finished; keys side by side: up to %d at once%s%s%s",
                KEYS, JOBS_PER_KEY, nodesUsed, completed, outOfOrder, overlapping, acrossKeys,
                wrongKey == 0 ? "" : "; " + wrongKey + " job(s) without their key seq:<key>",
                runs.ranMoreThanOnce() == 0 ? "" : "; " + runs.ranMoreThanOnce() + " job(s) ran more than once",
                firstProblems.isEmpty() ? "" : "; e.g. " + String.join("; ", firstProblems)));
    }
}
