package dev.skipjack.internal.cron;

import dev.skipjack.InvalidOptionException;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** F-11: cron expressions parse with seconds optional, refuse bad input with its position, and keep DST days. */
class CronExpressionTest {

    static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    @Test
    void fiveFieldsMeanSecondZeroAndSixFieldsStartWithSeconds() {
        Instant after = Instant.parse("2026-05-01T10:00:00Z");
        assertThat(CronExpression.parse("*/15 * * * *").nextAfter(after, ZoneOffset.UTC)).contains(Instant.parse("2026-05-01T10:15:00Z"));
        assertThat(CronExpression.parse("30 */15 * * * *").nextAfter(after, ZoneOffset.UTC)).contains(Instant.parse("2026-05-01T10:00:30Z"));
        assertThat(CronExpression.parse("0 9 * * MON-FRI").nextAfter(Instant.parse("2026-05-02T00:00:00Z"), ZoneOffset.UTC))
                .as("Saturday 2 May 2026: next weekday is Monday").contains(Instant.parse("2026-05-04T09:00:00Z"));
    }

    /** robfig/cron#541: a daily 02:30 must not vanish on the spring-forward day; it runs when the hour resumes. */
    @Test
    void aTickInTheSpringForwardGapRunsWhenTheClockResumes() {
        CronExpression daily = CronExpression.parse("30 2 * * *");
        Instant saturday = Instant.parse("2026-03-28T12:00:00Z");
        Instant gapDay = daily.nextAfter(saturday, PARIS).orElseThrow();
        assertThat(gapDay).as("03:30 CEST on 29 March 2026").isEqualTo(Instant.parse("2026-03-29T01:30:00Z"));
        assertThat(daily.nextAfter(gapDay, PARIS)).contains(Instant.parse("2026-03-30T00:30:00Z"));
    }

    @Test
    void aTickInTheFallBackOverlapRunsOnceAtTheEarlierOffset() {
        CronExpression daily = CronExpression.parse("30 2 * * *");
        Instant first = daily.nextAfter(Instant.parse("2026-10-24T12:00:00Z"), PARIS).orElseThrow();
        assertThat(first).as("02:30 CEST, the first of the two").isEqualTo(Instant.parse("2026-10-25T00:30:00Z"));
        assertThat(daily.nextAfter(first, PARIS)).as("not again at 02:30 CET").contains(Instant.parse("2026-10-26T01:30:00Z"));
    }

    @Test
    void badExpressionsNameTheFieldAndItsColumn() {
        assertThatThrownBy(() -> CronExpression.parse("0 61 * * *")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("hour field (column 3) '61'").hasMessageContaining("61");
        assertThatThrownBy(() -> CronExpression.parse("0 0 1 * MON-FOO")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("day-of-week field (column 9) 'MON-FOO'");
        assertThatThrownBy(() -> CronExpression.parse("* * * *")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("expected 5 fields").hasMessageContaining("got 4");
        assertThatThrownBy(() -> CronExpression.parse("0 0 0 30 2 ?")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("never matches");
        assertThatThrownBy(() -> CronExpression.parse(" ")).isInstanceOf(InvalidOptionException.class).hasMessageContaining("blank");
    }
}
