package dev.skipjack.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobPage;
import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import dev.skipjack.Skipjack;
import dev.skipjack.UnknownKindException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Drives and inspects a {@link Skipjack} client from a test, through the database it uses: runs
 * jobs on the test's thread through their real, registered handlers, finds and asserts enqueued
 * jobs, drains queues, and moves the database clock. Works in any test framework (failures are
 * {@link AssertionError}s); {@link SkipjackExtension} adds JUnit 5 conveniences.
 *
 * <pre>{@code
 * SkipjackTester tester = SkipjackTester.of(skipjack);   // e.g. the Spring context's Skipjack bean
 * signupService.register("ada@example.org");           // enqueues a welcome mail
 * JobInfo job = tester.assertEnqueued(SEND_EMAIL, new SendEmail("ada@example.org"));
 * assertEquals(JobState.COMPLETED, tester.run(job.id()).state());
 * }</pre>
 *
 * Every run goes through {@link Skipjack#runJob(long)}: the row is claimed, the args read into the
 * kind's type, the handler called (in the job's transaction for transactional and two-phase kinds)
 * and the outcome recorded with a worker's rules. Runs and drains are meant for a client that is
 * not {@link Skipjack#start() started}: a started one's workers take jobs too, and a run finds the
 * job already gone. Thread-safe as far as the client is; the clock is the client's.
 */
public final class SkipjackTester {

    /** Most runs a {@link #drain()} makes before it fails, unless {@link #withDrainLimit} says otherwise. */
    public static final int DEFAULT_DRAIN_LIMIT = 1_000;
    /** Jobs a failure message lists, at most. */
    static final int LISTED_JOBS = 20;

    private static final ObjectMapper DEFAULT_MAPPER = JsonMapper.builder().findAndAddModules().build();

    private final Skipjack skipjack;
    private final ObjectMapper mapper;
    private final int drainLimit;

    private SkipjackTester(Skipjack skipjack, ObjectMapper mapper, int drainLimit) {
        this.skipjack = skipjack;
        this.mapper = mapper;
        this.drainLimit = drainLimit;
    }

    /** A tester of {@code skipjack}, comparing args as the default Skipjack mapper writes them. */
    public static SkipjackTester of(Skipjack skipjack) {
        return new SkipjackTester(Objects.requireNonNull(skipjack, "skipjack"), DEFAULT_MAPPER, DEFAULT_DRAIN_LIMIT);
    }

    /**
     * The mapper expected args are written with before they are compared with the stored ones:
     * give the one the client was built with ({@code Skipjack.Builder.objectMapper}) when it
     * names fields differently from the default.
     */
    public SkipjackTester withObjectMapper(ObjectMapper mapper) {
        return new SkipjackTester(skipjack, Objects.requireNonNull(mapper, "mapper"), drainLimit);
    }

    /** Most runs a drain makes before it fails (a handler that enqueues itself forever); default 1,000. */
    public SkipjackTester withDrainLimit(int runs) {
        if (runs < 1) {
            throw new IllegalArgumentException("drain limit must be at least 1, got " + runs);
        }
        return new SkipjackTester(skipjack, mapper, runs);
    }

    /** The client this tester drives. */
    public Skipjack skipjack() {
        return skipjack;
    }

    // ---------------------------------------------------------------- run

    /**
     * Runs job {@code id} once, now, on this thread, through its registered handler, and returns
     * the job as its run left it: {@code COMPLETED}, {@code RETRYABLE} with the error in
     * {@link JobInfo#errors()}, {@code DISCARDED}, {@code CANCELLED}, {@code SCHEDULED} after a
     * snooze; {@link JobInfo#outputJson()} holds what it output. Due scheduled and retryable jobs
     * are made available first, so a job the clock made due runs.
     *
     * @throws AssertionError           when the job was not available to run (the message says its state)
     * @throws IllegalArgumentException when no job has this id
     * @throws UnknownKindException     when its kind has no handler on this client
     */
    public JobInfo run(long id) {
        return skipjack.runJob(id).orElseThrow(() -> new AssertionError(notRun(id)));
    }

    /** Enqueues a job of {@code kind} with {@code args} and {@link #run runs} it. */
    public <T> JobInfo enqueueAndRun(JobKind<T> kind, T args) {
        return run(skipjack.enqueue(kind, args));
    }

    /** Enqueues a job of {@code kind} with {@code args} and {@code options} and {@link #run runs} it (it must be due). */
    public <T> JobInfo enqueueAndRun(JobKind<T> kind, T args, EnqueueOptions options) {
        return run(skipjack.enqueue(kind, args, options));
    }

    private String notRun(long id) {
        Optional<JobInfo> found = skipjack.find(id);
        if (found.isEmpty()) {
            return "job " + id + " was not run: it no longer exists (deleted, or pruned by retention)";
        }
        JobInfo j = found.get();
        String why = switch (j.state()) {
            case SCHEDULED, RETRYABLE -> "it is " + j.state().dbValue() + " until " + j.runAt()
                    + " on the database clock (advanceClock moves that clock)";
            case WAITING -> "it is waiting (for its workflow parents or a slot of its concurrency key "
                    + j.concurrencyKey() + ")";
            case RUNNING -> "it is running, claimed by " + j.claimedBy() + " (is a started client working the queue?)";
            case AVAILABLE -> "another worker claimed it first (is a started client working the queue?)";
            default -> "it has ended: " + j.state().dbValue();
        };
        return "job " + id + " (kind '" + j.kind() + "', queue '" + j.queue() + "') was not run: " + why;
    }

    // ---------------------------------------------------------------- drain

    /**
     * Runs every due job of every queue, one at a time on this thread, until none is left:
     * including jobs those jobs enqueue, workflow children they release, and retries and snoozes
     * that come due (on the database clock: a retry with a 10 s backoff is not due in a drain
     * unless {@link #advanceClock} moved the clock). Jobs of kinds without a handler on this
     * client are left alone.
     *
     * @throws AssertionError when it made {@link #withDrainLimit its limit} of runs and jobs are still available
     */
    public DrainResult drain() {
        return drainQueue(null);
    }

    /** As {@link #drain()}, for queue {@code queue} only. */
    public DrainResult drain(String queue) {
        return drainQueue(Objects.requireNonNull(queue, "queue"));
    }

    private DrainResult drainQueue(String queue) {
        List<JobInfo> runs = new ArrayList<>();
        Set<String> unhandled = new HashSet<>();
        while (runs.size() < drainLimit) {
            JobInfo ran = runNext(queue, unhandled);
            if (ran == null) {
                return new DrainResult(runs);
            }
            runs.add(ran);
        }
        List<JobInfo> left = handled(candidates(queue, JobState.AVAILABLE), unhandled);
        if (left.isEmpty()) {
            return new DrainResult(runs);
        }
        Map<String, Integer> byKind = new LinkedHashMap<>();
        runs.forEach(j -> byKind.merge(j.kind(), 1, Integer::sum));
        throw new AssertionError("drain" + (queue == null ? "" : " of queue '" + queue + "'") + " stopped after "
                + drainLimit + " runs with " + left.size() + " jobs still available (runs by kind: " + byKind
                + "). A handler that enqueues itself, or snoozes without delay? If the work is that large, raise"
                + " withDrainLimit. Still available:" + list(left));
    }

    /** Runs the next due job of a handled kind, in claim order; null when there is none. */
    private JobInfo runNext(String queue, Set<String> unhandled) {
        JobInfo ran = runFirst(candidates(queue, JobState.AVAILABLE), unhandled);
        if (ran != null) {
            return ran;
        }
        // Nothing available: a run of the earliest timed job first makes every due job available.
        List<JobInfo> timed = handled(candidates(queue, JobState.SCHEDULED, JobState.RETRYABLE), unhandled);
        if (timed.isEmpty()) {
            return null;
        }
        timed.sort(Comparator.comparing(JobInfo::runAt).thenComparingLong(JobInfo::id));
        ran = runFirst(timed.subList(0, 1), unhandled);
        return ran != null ? ran : runFirst(candidates(queue, JobState.AVAILABLE), unhandled);
    }

    private JobInfo runFirst(List<JobInfo> candidates, Set<String> unhandled) {
        for (JobInfo candidate : handled(candidates, unhandled)) {
            try {
                Optional<JobInfo> ran = skipjack.runJob(candidate.id());
                if (ran.isPresent()) {
                    return ran.get();
                }
            } catch (UnknownKindException e) {
                unhandled.add(candidate.kind());
            }
        }
        return null;
    }

    private static List<JobInfo> handled(List<JobInfo> jobs, Set<String> unhandled) {
        return new ArrayList<>(jobs.stream().filter(j -> !unhandled.contains(j.kind())).toList());
    }

    /** Jobs in these states, in claim order (priority, due time, id). */
    private List<JobInfo> candidates(String queue, JobState... states) {
        JobQuery q = JobQuery.all().state(states).limit(JobQuery.MAX_LIMIT);
        if (queue != null) {
            q = q.queue(queue);
        }
        List<JobInfo> jobs = new ArrayList<>(skipjack.admin().jobs(q).jobs());
        jobs.sort(Comparator.comparingInt(JobInfo::priority).thenComparing(JobInfo::runAt)
                .thenComparingLong(JobInfo::id));
        return jobs;
    }

    // ---------------------------------------------------------------- find and assert

    /** The jobs {@code matcher} describes, as stored now, oldest first. */
    public List<JobInfo> enqueued(JobMatcher matcher) {
        Objects.requireNonNull(matcher, "matcher");
        JsonNode expected = matcher.expectedArgs() == null ? null : tree(matcher.expectedArgs());
        List<JobInfo> matching = new ArrayList<>();
        for (JobInfo j : stored(matcher)) {
            if (expected == null || ArgsMatch.contains(readTree(j), expected)) {
                matching.add(j);
            }
        }
        return matching;
    }

    /**
     * The oldest job {@code matcher} describes.
     *
     * @throws AssertionError when there is none; the message lists the jobs of that kind there are,
     *                        and how many of each other kind
     */
    public JobInfo assertEnqueued(JobMatcher matcher) {
        List<JobInfo> found = enqueued(matcher);
        if (found.isEmpty()) {
            throw new AssertionError("expected a job of " + describe(matcher) + ", found none. " + whatIsEnqueued(matcher));
        }
        return found.get(0);
    }

    /** The oldest job of {@code kind} whose args contain {@code args}; see {@link #assertEnqueued(JobMatcher)}. */
    public <T> JobInfo assertEnqueued(JobKind<T> kind, T args) {
        return assertEnqueued(JobMatcher.kind(kind).args(args));
    }

    /** The oldest job of kind {@code kind} whose args contain {@code args}; see {@link #assertEnqueued(JobMatcher)}. */
    public JobInfo assertEnqueued(String kind, Object args) {
        return assertEnqueued(JobMatcher.kind(kind).args(args));
    }

    /**
     * The jobs {@code matcher} describes, when there are exactly {@code count}.
     *
     * @throws AssertionError otherwise, listing what is enqueued
     */
    public List<JobInfo> assertEnqueued(JobMatcher matcher, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative, got " + count);
        }
        List<JobInfo> found = enqueued(matcher);
        if (found.size() != count) {
            throw new AssertionError("expected " + count + " jobs of " + describe(matcher) + ", found "
                    + found.size() + ". " + whatIsEnqueued(matcher));
        }
        return found;
    }

    /**
     * Passes when no job matches {@code matcher}.
     *
     * @throws AssertionError listing the jobs that match
     */
    public void assertNotEnqueued(JobMatcher matcher) {
        List<JobInfo> found = enqueued(matcher);
        if (!found.isEmpty()) {
            throw new AssertionError("expected no job of " + describe(matcher) + ", found " + found.size()
                    + ":" + list(found));
        }
    }

    private List<JobInfo> stored(JobMatcher matcher) {
        JobQuery q = JobQuery.all().kind(matcher.kindName()).limit(JobQuery.MAX_LIMIT);
        if (matcher.queueName() != null) {
            q = q.queue(matcher.queueName());
        }
        if (!matcher.states().isEmpty()) {
            q = q.state(matcher.states().toArray(JobState[]::new));
        }
        List<JobInfo> jobs = new ArrayList<>();
        JobPage page = skipjack.admin().jobs(q);
        jobs.addAll(page.jobs());
        while (page.hasMore()) {
            page = skipjack.admin().jobs(q.after(page.nextCursor()));
            jobs.addAll(page.jobs());
        }
        jobs.sort(Comparator.comparingLong(JobInfo::id));
        return jobs;
    }

    private String describe(JobMatcher matcher) {
        return matcher.describe(matcher.expectedArgs() == null ? null : tree(matcher.expectedArgs()).toString());
    }

    /** The jobs of the matcher's kind in any queue and state, and how many jobs of each other kind. */
    private String whatIsEnqueued(JobMatcher matcher) {
        List<JobInfo> sameKind = stored(JobMatcher.kind(matcher.kindName()));
        StringBuilder b = new StringBuilder();
        if (sameKind.isEmpty()) {
            b.append("No job of kind '").append(matcher.kindName()).append("' is stored.");
        } else {
            b.append("Jobs of kind '").append(matcher.kindName()).append("' stored (").append(sameKind.size())
                    .append("):").append(list(sameKind));
        }
        Map<String, Integer> others = new LinkedHashMap<>();
        for (JobInfo j : skipjack.admin().jobs(JobQuery.all().limit(JobQuery.MAX_LIMIT)).jobs()) {
            if (!j.kind().equals(matcher.kindName())) {
                others.merge(j.kind(), 1, Integer::sum);
            }
        }
        b.append(others.isEmpty() ? "\nNo job of another kind." : "\nJobs of other kinds: " + others);
        return b.toString();
    }

    private static String list(List<JobInfo> jobs) {
        StringBuilder b = new StringBuilder();
        jobs.stream().limit(LISTED_JOBS).forEach(j -> b.append("\n  #").append(j.id())
                .append(" queue=").append(j.queue())
                .append(" state=").append(j.state().dbValue())
                .append(" attempt=").append(j.attempt())
                .append(" args=").append(j.argsJson()));
        if (jobs.size() > LISTED_JOBS) {
            b.append("\n  ... and ").append(jobs.size() - LISTED_JOBS).append(" more");
        }
        return b.toString();
    }

    private JsonNode tree(Object args) {
        try {
            return mapper.valueToTree(args);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected args " + args + " cannot be written as JSON: " + e.getMessage(), e);
        }
    }

    private JsonNode readTree(JobInfo job) {
        try {
            return mapper.readTree(job.argsJson());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job " + job.id() + " has args that are not JSON: " + job.argsJson(), e);
        }
    }

    // ---------------------------------------------------------------- clock

    /**
     * Moves the client's {@link Skipjack#clock() database clock} forward by {@code amount}, as if
     * that much time had passed for every statement this client runs: delayed jobs, retries
     * waiting for their backoff and snoozed jobs become due (a run or a drain then takes them),
     * cron ticks and retention deadlines come, and so do lease expiries (a started client would
     * rescue its own running jobs). It does not move the database server's clock (rows written by
     * plain SQL with {@code now()}), other clients' clocks, or the JVM's; nothing sleeps.
     *
     * @return the clock's total offset now
     */
    public Duration advanceClock(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        if (amount.isNegative()) {
            throw new IllegalArgumentException("advanceClock moves the clock forward; got " + amount
                    + " (resetClock goes back to the database's own time)");
        }
        return skipjack.clock().advance(amount).offset();
    }

    /** Back to the database's own time. */
    public void resetClock() {
        skipjack.clock().reset();
    }
}
