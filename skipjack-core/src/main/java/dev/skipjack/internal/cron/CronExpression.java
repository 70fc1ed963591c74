package dev.skipjack.internal.cron;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.skipjack.InvalidOptionException;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.ZonedDateTime;
import java.util.Optional;

/**
 * A parsed cron expression (F-11) and its ticks in a time zone. cron-utils parses (Spring's
 * six-field syntax: seconds first, {@code ?}, {@code L}, {@code W}, {@code #}, names of months and
 * days); five fields mean seconds 0. Ticks are found on the wall clock and then placed in the zone
 * by java.time's rule: a wall time in a DST gap moves forward by the gap (02:30 on a spring-forward
 * day runs at 03:30, where cron-utils alone skips the day), a wall time that occurs twice in a
 * fall-back overlap runs once, at the earlier offset.
 */
public final class CronExpression {

    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));
    private static final String[] FIELDS = {"second", "minute", "hour", "day-of-month", "month", "day-of-week"};
    /** Ticks looked at before giving up on an expression that never matches (e.g. 30 February). */
    private static final int MAX_STEPS = 1_000;

    private final String text;
    private final ExecutionTime execution;

    private CronExpression(String text, ExecutionTime execution) {
        this.text = text;
        this.execution = execution;
    }

    /**
     * Parses {@code text}: five fields (minute hour day-of-month month day-of-week) or six (second
     * first).
     *
     * @throws InvalidOptionException naming the field, its position and what is wrong with it
     */
    public static CronExpression parse(String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidOptionException("cron expression must not be null or blank");
        }
        String trimmed = text.trim();
        String[] fields = trimmed.split("\\s+");
        if (fields.length != 5 && fields.length != 6) {
            throw new InvalidOptionException("invalid cron expression '" + text + "': expected 5 fields (minute hour"
                    + " day-of-month month day-of-week) or 6 (second first), got " + fields.length);
        }
        String six = fields.length == 5 ? "0 " + trimmed : trimmed;
        Cron cron;
        try {
            cron = PARSER.parse(six).validate();
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("invalid cron expression '" + text + "': " + whereInvalid(text, fields)
                    + cleaned(e.getMessage()));
        }
        CronExpression parsed = new CronExpression(trimmed, ExecutionTime.forCron(cron));
        if (parsed.nextAfter(Instant.parse("2000-01-01T00:00:00Z"), ZoneOffset.UTC).isEmpty()) {
            throw new InvalidOptionException("invalid cron expression '" + text + "': it never matches a date");
        }
        return parsed;
    }

    /**
     * The field that fails on its own, as "minute field (column 3) '61': ", or "" when no single
     * field does (the fields conflict only together).
     */
    private static String whereInvalid(String text, String[] fields) {
        int offset = fields.length == 5 ? 1 : 0;
        int column = 0;
        for (int i = 0; i < fields.length; i++) {
            column = text.indexOf(fields[i], column);
            String[] alone = {"0", "*", "*", "*", "*", "*"};
            alone[i + offset] = fields[i];
            try {
                PARSER.parse(String.join(" ", alone)).validate();
            } catch (IllegalArgumentException e) {
                return FIELDS[i + offset] + " field (column " + (column + 1) + ") '" + fields[i] + "': ";
            }
            column += fields[i].length();
        }
        return "";
    }

    private static String cleaned(String message) {
        return message == null ? "not a valid expression" : message.replace("Failed to parse cron expression. ", "");
    }

    /** The expression as given (trimmed). */
    public String text() {
        return text;
    }

    /**
     * The first tick strictly after {@code after} in {@code zone}; empty when none comes (an
     * expression matching only dates that never occur).
     */
    public Optional<Instant> nextAfter(Instant after, ZoneId zone) {
        // Walk the wall clock with a zone that has no DST, then place each wall time in the real zone.
        LocalDateTime wall = LocalDateTime.ofInstant(after, zone);
        for (int step = 0; step < MAX_STEPS; step++) {
            Optional<ZonedDateTime> next = execution.nextExecution(wall.atZone(ZoneOffset.UTC));
            if (next.isEmpty()) {
                return Optional.empty();
            }
            wall = next.get().toLocalDateTime();
            Instant tick = ZonedDateTime.ofLocal(wall, zone, null).toInstant();
            if (tick.isAfter(after)) {
                return Optional.of(tick);
            }
            ZoneOffsetTransition transition = zone.getRules().getTransition(wall);
            if (transition != null && transition.isOverlap()) {
                // `after` is in the second pass of a fall-back overlap: the overlap's wall
                // times ran in its first pass, at the earlier offset. Go on from its end, rather
                // than step through it tick by tick (a per-second schedule gave up after 1,000
                // steps and was never due again).
                wall = transition.getDateTimeBefore().minusSeconds(1);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return text;
    }
}
