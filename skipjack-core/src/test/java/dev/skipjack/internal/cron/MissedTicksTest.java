package dev.skipjack.internal.cron;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-11, Misfire.BACKFILL: after an outage with more missed ticks than a catch-up enqueues, the
 * newest ones are enqueued, the latest missed tick included, and the oldest are the ones skipped.
 */
class MissedTicksTest {

    private static final ZoneId UTC = ZoneOffset.UTC;
    private static final int LIMIT = 100;

    @Test
    void aLongOutageBackfillsTheNewestTicksUpToTheLatest() {
        CronExpression minutely = CronExpression.parse("* * * * *");
        Instant now = Instant.parse("2026-11-29T12:00:30Z");
        Instant first = Instant.parse("2026-11-29T09:00:00Z"); // the stored next tick: three hours ago

        List<Instant> ticks = CronTicker.newestTicks(minutely, UTC, first, now, LIMIT);

        assertThat(ticks).hasSize(LIMIT).isSorted();
        assertThat(ticks.get(LIMIT - 1)).as("the latest missed tick").isEqualTo(Instant.parse("2026-11-29T12:00:00Z"));
        assertThat(ticks.get(0)).isEqualTo(Instant.parse("2026-11-29T10:21:00Z"));
        assertThat(ticks).doesNotHaveDuplicates().allSatisfy(t -> assertThat(t).isBetween(first, now));
    }

    @Test
    void fewerMissedTicksThanTheLimitAreAllBackfilled() {
        CronExpression hourly = CronExpression.parse("0 * * * *");
        Instant first = Instant.parse("2026-11-29T03:00:00Z");
        Instant now = Instant.parse("2026-11-29T12:30:00Z");

        assertThat(CronTicker.newestTicks(hourly, UTC, first, now, LIMIT))
                .hasSize(10).startsWith(first).endsWith(Instant.parse("2026-11-29T12:00:00Z"));
    }

    @Test
    void aPerSecondScheduleDownForADayKeepsTheNewestHundredSeconds() {
        CronExpression everySecond = CronExpression.parse("* * * * * *");
        Instant now = Instant.parse("2026-11-29T12:00:00Z");
        Instant first = now.minus(Duration.ofDays(1));

        List<Instant> ticks = CronTicker.newestTicks(everySecond, UTC, first, now, LIMIT);

        assertThat(ticks).hasSize(LIMIT).endsWith(now);
        assertThat(ticks.get(0)).isEqualTo(now.minusSeconds(LIMIT - 1));
    }
}
