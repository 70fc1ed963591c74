package dev.skipjack.cli.demo.features;

import dev.skipjack.CronSchedule;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobQuery;
import dev.skipjack.Misfire;
import dev.skipjack.Outcome;
import dev.skipjack.ScheduleInfo;
import dev.skipjack.Skipjack;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Cron (F-11): a schedule ticking every second, run by {@link #NODES} clients at once on the same
 * database. Afterwards the jobs table must hold exactly one job per tick (a job's {@code run_at} is
 * its tick), with no tick missing between the first and the last one enqueued.
 *
 * <p>The schedule allows overlap and backfills missed ticks, so that every tick has its own job
 * whatever the timing: with the defaults a tick is skipped on purpose while the previous tick's job
 * is unfinished, or left out when the nodes fell behind, and "missing" would not mean "lost".
 */
public class CronCheck implements FeatureCheck {

    /** The schedule's args: the run token, to tell this run's ticks from an earlier run's. */
    public record Tick(String run) {
    }

    public static final JobKind<Tick> TICK = JobKind.of("features-cron-tick", Tick.class);
    static final String QUEUE = "features-cron";
    static final String SCHEDULE = "features-demo-every-second";
    static final int NODES = 3;
    /** Ticks to wait for: about this many seconds. */
    static final int TICKS = 4;

    @Override
    public String name() {
        return "cron";
    }

    @Override
    public Set<String> kinds() {
        return Set.of(TICK.name());
    }

    @Override
    public CheckResult run(FeatureContext context) throws Exception {
        CronSchedule everySecond = CronSchedule.of(SCHEDULE, "* * * * * *", TICK, new Tick(context.runToken()))
                .withOptions(EnqueueOptions.defaults().withQueue(QUEUE))
                .allowingOverlap()
                .onMisfire(Misfire.BACKFILL);
        try (Skipjack reader = context.client("cron-reader").kind(TICK).build()) {
            reader.unschedule(SCHEDULE); // left over by an earlier run that was killed
            List<Skipjack> nodes = new ArrayList<>();
            boolean enoughTicks;
            try {
                for (int i = 1; i <= NODES; i++) {
                    Skipjack node = context.client("cron-node-" + i).queue(QUEUE, 2)
                            .handler(TICK, job -> Outcome.complete())
                            .cron(everySecond)
                            .cronInterval(Duration.ofMillis(100))
                            .build();
                    nodes.add(node);
                    node.start();
                }
                enoughTicks = context.await(() -> ticksOfThisRun(reader, context).size() >= TICKS);
            } finally {
                for (Skipjack node : nodes) {
                    node.close();
                }
            }
            Optional<ScheduleInfo> schedule = reader.admin().schedules().stream()
                    .filter(s -> s.name().equals(SCHEDULE)).findFirst();
            reader.unschedule(SCHEDULE);
            if (!enoughTicks) {
                return CheckResult.of(false, String.format(Locale.ROOT,
                        "cron: %d nodes ran a schedule every second, but fewer than %d ticks were enqueued within %d s (%d)",
                        NODES, TICKS, context.timeout().toSeconds(), ticksOfThisRun(reader, context).size()));
            }
            beforeVerifying(reader, context, ticksOfThisRun(reader, context));
            return verify(ticksOfThisRun(reader, context), schedule);
        }
    }

    /**
     * Called after the nodes stopped, before the jobs table is judged. Does nothing here; a test
     * overrides it to put wrong data in the database and see the check fail.
     */
    protected void beforeVerifying(Skipjack client, FeatureContext context, List<JobInfo> ticks) {
    }

    /** Jobs per tick from the database: one each, consecutive seconds, the schedule's last tick among them. */
    private static CheckResult verify(List<JobInfo> jobs, Optional<ScheduleInfo> schedule) {
        Map<Instant, Integer> jobsPerTick = new TreeMap<>();
        for (JobInfo job : jobs) {
            jobsPerTick.merge(job.runAt(), 1, Integer::sum);
        }
        List<Instant> ticks = new ArrayList<>(jobsPerTick.keySet());
        List<String> twice = new ArrayList<>();
        jobsPerTick.forEach((tick, count) -> {
            if (count > 1) {
                twice.add(tick + " x" + count);
            }
        });
        long missing = 0;
        for (int i = 1; i < ticks.size(); i++) {
            long gapSeconds = Duration.between(ticks.get(i - 1), ticks.get(i)).toSeconds();
            missing += Math.max(0, gapSeconds - 1);
        }
        boolean onSeconds = ticks.stream().allMatch(t -> t.getNano() == 0);
        boolean lastTickRecorded = schedule.isPresent() && schedule.get().lastJobId() != null
                && jobs.stream().anyMatch(j -> j.id() == schedule.get().lastJobId());
        boolean passed = twice.isEmpty() && missing == 0 && onSeconds && lastTickRecorded && !ticks.isEmpty();
        return CheckResult.of(passed, String.format(Locale.ROOT,
                "cron: %d nodes ran a schedule every second: %d jobs for %d ticks %s..%s in the database;"
                        + " enqueued twice: %s; missing between the first and last: %d%s%s",
                NODES, jobs.size(), ticks.size(), ticks.isEmpty() ? "-" : ticks.get(0),
                ticks.isEmpty() ? "-" : ticks.get(ticks.size() - 1), twice.isEmpty() ? "none" : String.join(", ", twice),
                missing, onSeconds ? "" : "; some ticks are not on a whole second",
                lastTickRecorded ? "" : "; the schedule's last tick points at no job of this run"));
    }

    /** This run's tick jobs, as the database holds them. */
    private static List<JobInfo> ticksOfThisRun(Skipjack client, FeatureContext context) {
        return client.admin().jobs(JobQuery.all().kind(TICK.name())
                .argsContain("{\"run\": \"" + context.runToken() + "\"}").limit(JobQuery.MAX_LIMIT)).jobs();
    }
}
