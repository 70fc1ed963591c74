package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-11: each tick of a cron schedule is enqueued exactly once however many nodes run it, across
 * restarts, a clock stepped back and a redefinition; missed ticks follow the misfire policy; a tick
 * is skipped while an earlier tick's job is unfinished unless overlap is allowed. Time is moved
 * with {@link DatabaseClock}, never slept through. The traps are other queues' reported bugs: every
 * entry twice under a stale leader (oban#1488), schedules kept in memory that never ran across
 * restarts (river#791), ticks re-fired after their jobs were pruned (good_job#767), a failing run
 * overlapping the next tick (graphile-worker#285).
 */
class CronTest extends EveryBackendTest {

    record Report(String name) {
    }

    static final JobKind<Report> REPORT = JobKind.of("report", Report.class);
    static final Duration WAIT = Duration.ofSeconds(30);

    private final DatabaseClock clock = new DatabaseClock();

    /** A node that runs cron rounds but serves no queue the scheduled jobs go to: they stay put. */
    private Skipjack node(CronSchedule... declared) {
        Skipjack.Builder b = builder().clock(clock).kind(REPORT).queue("elsewhere", 1).cronInterval(Duration.ofMillis(100));
        for (CronSchedule s : declared) {
            b.cron(s);
        }
        return client(b);
    }

    private long jobsOf(String kind) {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE kind = ?", kind);
    }

    private long ticksOf(String schedule) {
        return queryLong("SELECT count(*) FROM " + table("skipjack_cron_ticks") + " WHERE name = ?", schedule);
    }

    /** Ticks enqueued more than once: jobs of the kind sharing a due time. */
    private long repeatedTicks() {
        return queryLong("SELECT count(*) FROM (SELECT run_at FROM " + jobsTable()
                + " WHERE kind = 'report' GROUP BY run_at HAVING count(*) > 1) AS t");
    }

    private Instant nextTick(Skipjack s, String name) {
        return s.admin().schedules().stream().filter(i -> i.name().equals(name)).findFirst().orElseThrow().nextTickAt();
    }

    /**
     * The database's now is read in whole seconds, rounded down: rounded to the nearest, a round
     * in the second half of a second took the next second for now, and a tick due then was
     * enqueued up to half a second early (and stored as next one second too late).
     */
    @Test
    void aScheduleIsNeverAheadOfTheDatabaseClock() {
        Skipjack s = client(builder().kind(REPORT));
        // Schedules stored over more than a second of the database's clock, so at every fraction of a second.
        long startMicros = databaseEpochMicros();
        for (int i = 0; i < 20 || databaseEpochMicros() - startMicros < 1_200_000; i++) {
            String name = "every-second-" + i;
            s.schedule(CronSchedule.of(name, "* * * * * *", REPORT, new Report(name)));
            Instant after = Instant.EPOCH.plus(databaseEpochMicros(), java.time.temporal.ChronoUnit.MICROS);
            // The first tick after the database's now when it was stored: at most a second after it.
            assertThat(nextTick(s, name)).as(name).isBeforeOrEqualTo(after.plusSeconds(1));
        }
    }

    private long databaseEpochMicros() {
        return queryLong("SELECT " + backend().epochMicrosNow());
    }

    @Test
    void everyTickIsEnqueuedOnceHoweverManyNodesRunIt() {
        CronSchedule everyMinute = CronSchedule.of("minutely", "* * * * *", REPORT, new Report("m")).allowingOverlap();
        List<Skipjack> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(node(everyMinute));
        }
        nodes.forEach(Skipjack::start);
        for (int minute = 1; minute <= 8; minute++) {
            long before = ticksOf("minutely");
            clock.advance(Duration.ofMinutes(1));
            await("tick " + minute, WAIT, () -> ticksOf("minutely") > before);
        }
        assertThat(repeatedTicks()).as("ticks enqueued twice").isZero();
        // Jobs and ticks counted by one statement, in one snapshot: a tick enqueued between two
        // reads (its job and tick row commit together) cannot make them differ.
        assertThat(queryLong("SELECT (SELECT count(*) FROM " + jobsTable() + " WHERE kind = 'report') - (SELECT count(*) FROM "
                + table("skipjack_cron_ticks") + " WHERE name = 'minutely')")).as("jobs minus recorded ticks").isZero();
        assertThat(ticksOf("minutely")).isGreaterThanOrEqualTo(8);
    }

    @Test
    void missedTicksFollowTheMisfirePolicyWhenANodeComesBack() {
        Skipjack producer = client(builder().clock(clock).kind(REPORT));
        // Hourly, so no regular tick comes while the test runs.
        producer.schedule(CronSchedule.of("once", "0 * * * *", REPORT, new Report("once")));
        producer.schedule(CronSchedule.of("backfill", "0 * * * *", REPORT, new Report("backfill"))
                .onMisfire(Misfire.BACKFILL).allowingOverlap());
        producer.schedule(CronSchedule.of("skip", "0 * * * *", REPORT, new Report("skip")).onMisfire(Misfire.SKIP));
        Instant firstTick = nextTick(producer, "once");
        // Everything was down until half an hour after the tenth missed tick. Aligned to the tick
        // rather than a fixed ten and a half hours: a fixed step lands within a minute of a tick
        // once an hour of wall time, and then SKIP rightly fires that tick.
        clock.advance(Duration.between(Instant.now(), firstTick).plus(Duration.ofMinutes(9 * 60 + 30)));
        Skipjack node = node();
        node.start();
        await("all three caught up", WAIT, () -> producer.admin().schedules().stream()
                .allMatch(i -> i.nextTickAt().isAfter(firstTick.plus(Duration.ofHours(9)))));
        assertThat(ticksOf("once")).as("fire once").isEqualTo(1);
        assertThat(ticksOf("backfill")).as("one per missed tick").isEqualTo(10);
        assertThat(ticksOf("skip")).as("skip: ticks over a minute late").isZero();
        assertThat(repeatedTicksOf("backfill")).isZero();
    }

    private long repeatedTicksOf(String name) {
        return queryLong("SELECT count(*) FROM (SELECT tick_at FROM " + table("skipjack_cron_ticks")
                + " WHERE name = ? GROUP BY tick_at HAVING count(*) > 1) AS t", name);
    }

    /** A clock stepped back and a redefinition move next_tick_at back over ticks already enqueued: none runs again. */
    @Test
    void aClockSteppedBackAndARedefinitionNeverRepeatATick() {
        CronSchedule v1 = CronSchedule.of("stepped", "* * * * *", REPORT, new Report("v1")).allowingOverlap();
        Skipjack node = node(v1);
        node.start();
        for (int minute = 1; minute <= 3; minute++) {
            long before = ticksOf("stepped");
            clock.advance(Duration.ofMinutes(1));
            await("tick " + minute, WAIT, () -> ticksOf("stepped") > before);
        }
        long enqueued = jobsOf("report");
        clock.advance(Duration.ofMinutes(-3));
        // Redefined while the clock is back: its next tick is computed from the earlier time.
        node.schedule(CronSchedule.of("stepped", "* * * * *", REPORT, new Report("v1"))
                .withOptions(EnqueueOptions.defaults().withPriority(5)).allowingOverlap());
        clock.advance(Duration.ofMinutes(4));
        await("a new tick after the old ones", WAIT, () -> jobsOf("report") > enqueued);
        assertThat(repeatedTicks()).as("ticks enqueued twice").isZero();
        assertThat(repeatedTicksOf("stepped")).isZero();
    }

    /** graphile-worker#285: by default a tick waits for no one and piles nothing up: it is skipped. */
    @Test
    void aTickIsSkippedWhileAnEarlierTicksJobIsUnfinishedUnlessOverlapIsAllowed() {
        Skipjack node = node(CronSchedule.of("single", "* * * * *", REPORT, new Report("s")));
        node.start();
        for (int minute = 1; minute <= 3; minute++) {
            long before = ticksOf("single");
            clock.advance(Duration.ofMinutes(1));
            await("tick " + minute, WAIT, () -> ticksOf("single") > before);
        }
        assertThat(jobsOf("report")).as("the first tick's job never ran, so later ticks were skipped").isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM " + table("skipjack_cron_ticks") + " WHERE name = 'single' AND skipped = ?",
                true)).isEqualTo(ticksOf("single") - 1);
        ScheduleInfo info = node.admin().schedules().get(0);
        assertThat(info.lastJobId()).as("skipped ticks point at the unfinished job").isNotNull();
        assertThat(node.find(info.lastJobId()).orElseThrow().uniqueKey()).isEqualTo("report|key=cron:single");
    }

    @Test
    void schedulesLiveInTheDatabaseAndCanBeChangedAtRunTime() {
        Skipjack s = client(builder().clock(clock).kind(REPORT));
        s.schedule(CronSchedule.of("hourly", "0 * * * *", REPORT, new Report("h")).inZone("Europe/Paris"));
        Instant next = nextTick(s, "hourly");
        s.schedule(CronSchedule.of("hourly", "0 * * * *", REPORT, new Report("h")).inZone("Europe/Paris"));
        assertThat(nextTick(s, "hourly")).as("re-declaring the same definition keeps the next tick").isEqualTo(next);
        ScheduleInfo info = s.admin().schedules().get(0);
        assertThat(info.expression()).isEqualTo("0 * * * *");
        assertThat(info.zone()).isEqualTo("Europe/Paris");
        assertThat(info.kind()).isEqualTo("report");
        assertThat(info.lastTickAt()).isNull();
        assertThat(s.unschedule("hourly")).isTrue();
        assertThat(s.unschedule("hourly")).isFalse();
        assertThat(s.admin().schedules()).isEmpty();
    }

    @Test
    void badSchedulesAreRefusedWhereTheyAreMade() {
        assertThatThrownBy(() -> CronSchedule.of("r", "0 25 * * *", REPORT, new Report("x")))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("hour field (column 3) '25'");
        assertThatThrownBy(() -> CronSchedule.of("r", "0 0 * *", REPORT, new Report("x")))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("expected 5 fields");
        assertThatThrownBy(() -> CronSchedule.of("9lives", "* * * * *", REPORT, new Report("x")))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("invalid schedule name '9lives'");
        assertThatThrownBy(() -> CronSchedule.of("r", "* * * * *", REPORT, new Report("x")).inZone("Mars/Olympus"))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("unknown time zone 'Mars/Olympus'");
        assertThatThrownBy(() -> CronSchedule.of("r", "* * * * *", REPORT, new Report("x"))
                .withOptions(EnqueueOptions.defaults().withDelay(Duration.ofMinutes(1))))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("the tick decides when it runs");
        assertThatThrownBy(() -> builder().cron(CronSchedule.of("r", "* * * * *", REPORT, new Report("x")))
                .cron(CronSchedule.of("r", "0 * * * *", REPORT, new Report("y"))))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("declared twice");
        Skipjack s = client(builder().kind(REPORT));
        @SuppressWarnings({"unchecked", "rawtypes"})
        JobKind<Object> mistyped = (JobKind) JobKind.of("report", Map.class);
        assertThatThrownBy(() -> s.schedule(CronSchedule.of("r", "* * * * *", mistyped, Map.of("a", 1))))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("one kind name, one args type");
        assertThat(s.admin().schedules()).isEmpty();
    }
}
