package dev.skipjack.cli.demo.features;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.EnqueueResult;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobQuery;
import dev.skipjack.JobRequest;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.Unique;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Unique jobs (F-10): many threads enqueue one unique key at the same moment. The database must
 * then hold exactly one job with that key, and every other caller must have been told it is a
 * duplicate of that job. Once the job completed, the key is free: a new enqueue makes a new job.
 */
public class UniqueJobsCheck implements FeatureCheck {

    /** One sync per customer; {@code caller} differs per thread, so the key decides, not the args. */
    public record Sync(String run, int caller) {
    }

    public static final JobKind<Sync> SYNC = JobKind.of("features-unique-sync", Sync.class);
    static final String QUEUE = "features-unique";
    static final int THREADS = 16;

    @Override
    public String name() {
        return "unique";
    }

    @Override
    public Set<String> kinds() {
        return Set.of(SYNC.name());
    }

    @Override
    public CheckResult run(FeatureContext context) throws Exception {
        String key = "customer-" + context.runToken();
        EnqueueOptions unique = EnqueueOptions.defaults().withQueue(QUEUE).withUnique(Unique.byKey(key));
        // Not started until the race is over: the job must still be pending while the threads enqueue.
        try (Skipjack client = context.client("unique").queue(QUEUE, 2)
                .handler(SYNC, job -> Outcome.complete()).build()) {
            List<EnqueueResult> answers = race(client, context.runToken(), unique);

            List<JobInfo> afterRace = jobsOfThisRun(client, context);
            long inserted = answers.stream().filter(r -> !r.duplicate()).count();
            Optional<JobInfo> holder = afterRace.size() == 1 ? Optional.of(afterRace.get(0)) : Optional.empty();
            long toldDuplicateOfHolder = holder.map(h -> answers.stream()
                    .filter(r -> r.duplicate() && r.id() == h.id()).count()).orElse(0L);
            boolean oneJob = holder.isPresent() && inserted == 1 && toldDuplicateOfHolder == THREADS - 1
                    && answers.stream().allMatch(r -> r.id() == holder.get().id());
            if (!oneJob) {
                return CheckResult.of(false, String.format(Locale.ROOT,
                        "unique: %d threads enqueued one key at once: the database holds %d job(s) with it"
                                + " (expected 1); %d callers were told they inserted, %d were told duplicate of it",
                        THREADS, afterRace.size(), inserted, toldDuplicateOfHolder));
            }
            long firstId = holder.get().id();

            client.start();
            boolean completed = context.await(() -> client.admin().job(firstId)
                    .map(j -> j.state() == JobState.COMPLETED).orElse(false));
            if (!completed) {
                return CheckResult.of(false, "unique: job " + firstId + " holding key " + key + " did not complete within "
                        + context.timeout().toSeconds() + " s");
            }
            EnqueueResult again = client.enqueueWithResult(JobRequest.of(SYNC, new Sync(context.runToken(), THREADS),
                    unique));
            List<JobInfo> afterReuse = jobsOfThisRun(client, context);
            long completedJobs = afterReuse.stream().filter(j -> j.state() == JobState.COMPLETED).count();
            boolean reused = !again.duplicate() && again.id() != firstId && afterReuse.size() == 2
                    && afterReuse.stream().anyMatch(j -> j.id() == again.id())
                    && afterReuse.stream().anyMatch(j -> j.id() == firstId && j.state() == JobState.COMPLETED);
            return CheckResult.of(reused, String.format(Locale.ROOT,
                    "unique: %d threads enqueued key %s at once: 1 job in the database (%d), %d callers told"
                            + " duplicate of it; after it completed the key was %s (%d jobs with the key, %d completed)",
                    THREADS, key, firstId, toldDuplicateOfHolder,
                    reused ? "taken again by a new job (" + again.id() + ")" : "not free again", afterReuse.size(),
                    completedJobs));
        }
    }

    /** Every thread waits at the gate, then enqueues the same key; returns what each was told. */
    private static List<EnqueueResult> race(Skipjack client, String run, EnqueueOptions unique) throws Exception {
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<EnqueueResult>> futures = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                int caller = i;
                futures.add(threads.submit(() -> {
                    ready.countDown();
                    go.await();
                    return client.enqueueWithResult(JobRequest.of(SYNC, new Sync(run, caller), unique));
                }));
            }
            ready.await();
            go.countDown();
            List<EnqueueResult> answers = new ArrayList<>();
            for (Future<EnqueueResult> f : futures) {
                answers.add(f.get());
            }
            return answers;
        } finally {
            threads.shutdownNow();
        }
    }

    /** This run's sync jobs, as the database holds them. */
    private static List<JobInfo> jobsOfThisRun(Skipjack client, FeatureContext context) {
        return client.admin().jobs(JobQuery.all().kind(SYNC.name())
                .argsContain("{\"run\": \"" + context.runToken() + "\"}").limit(JobQuery.MAX_LIMIT)).jobs();
    }
}
