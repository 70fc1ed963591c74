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

    /**
     * After a time in the second pass of a fall-back overlap, whose wall times already ran in its
     * first pass, the next tick is the first after the overlap: a per-second schedule stepped
     * through the repeated hour, gave up after 1,000 steps and was stored as never due again.
     */
    @Test
    void fromTheSecondPassOfAFallBackOverlapTheNextTickIsTheFirstAfterIt() {
        // 2024-10-27 in Paris: 03:00 CEST (01:00Z) falls back to 02:00 CET; 02:00:01 CET is 01:00:01Z.
        Instant secondPass = Instant.parse("2024-10-27T01:00:01Z");
        Instant endOfOverlap = Instant.parse("2024-10-27T02:00:00Z"); // 03:00:00 CET
        assertThat(CronExpression.parse("* * * * * *").nextAfter(secondPass, PARIS)).contains(endOfOverlap);
        assertThat(CronExpression.parse("*/2 * * * * *").nextAfter(secondPass, PARIS)).contains(endOfOverlap);
        assertThat(CronExpression.parse("*/10 * * * *").nextAfter(secondPass, PARIS)).contains(endOfOverlap);
        // In the first pass the wall clock and the instants agree: the next second is next.
        assertThat(CronExpression.parse("* * * * * *").nextAfter(Instant.parse("2024-10-27T00:00:01Z"), PARIS))
                .contains(Instant.parse("2024-10-27T00:00:02Z"));
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
