package dev.skipjack;

import dev.skipjack.internal.cron.CronExpression;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A periodic job (F-11): a job of {@code kind} with {@code args} enqueued at every tick of a cron
 * expression in a time zone, exactly once per tick however many nodes run, across restarts, clock
 * steps and deploys. Declare it with {@link Skipjack.Builder#cron(CronSchedule)} (stored when the
 * client starts) or add it at run time with {@link Skipjack#schedule(CronSchedule)}; either way it
 * lives in the database, so every started node can enqueue its ticks.
 *
 * <pre>{@code
 * Skipjack.builder(dataSource)
 *     .cron(CronSchedule.of("nightly-report", "0 30 2 * * *", REPORT, new Report("daily"))
 *             .inZone(ZoneId.of("Europe/Paris")))
 * }</pre>
 *
 * <p>Expressions: five fields (minute hour day-of-month month day-of-week) or six (second first),
 * with Spring's syntax ({@code *}, ranges, lists, steps, {@code ?}, {@code L}, {@code W},
 * {@code #}, {@code MON}-{@code SUN}, {@code JAN}-{@code DEC}). On a spring-forward day a tick in
 * the skipped hour runs when the hour resumes (02:30 runs at 03:30); on a fall-back day a tick in
 * the repeated hour runs once.
 *
 * <p>By default a tick is skipped while the job of an earlier tick is still unfinished (running,
 * retrying, waiting), so a slow or failing job never piles up; {@link #allowingOverlap()} enqueues
 * every tick. Immutable; the methods refuse bad values with {@link InvalidOptionException}.
 */
public final class CronSchedule {

    /** Schedule names: the same shape as kind names. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.:\\-]{0,127}");
    /** The most missed ticks one {@link Misfire#BACKFILL} catch-up enqueues. */
    public static final int BACKFILL_LIMIT = 100;

    private final String name;
    private final CronExpression expression;
    private final ZoneId zone;
    private final JobKind<?> kind;
    private final Object args;
    private final EnqueueOptions options;
    private final Misfire misfire;
    private final boolean allowOverlap;

    private CronSchedule(String name, CronExpression expression, ZoneId zone, JobKind<?> kind, Object args,
                         EnqueueOptions options, Misfire misfire, boolean allowOverlap) {
        this.name = name;
        this.expression = expression;
        this.zone = zone;
        this.kind = kind;
        this.args = args;
        this.options = options;
        this.misfire = misfire;
        this.allowOverlap = allowOverlap;
    }

    /**
     * A schedule named {@code name} enqueueing {@code kind} with {@code args} at every tick of
     * {@code expression}, in UTC, on the default queue, missed ticks fired once.
     *
     * @throws InvalidOptionException when the name is not 1-128 of letters, digits, '_', '.', ':'
     *                                and '-' starting with a letter, or the expression is invalid
     *                                (the message names the field and its column)
     */
    public static <T> CronSchedule of(String name, String expression, JobKind<T> kind, T args) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidOptionException("invalid schedule name " + (name == null ? "null" : "'" + name + "'")
                    + ": use 1-128 of letters, digits, '_', '.', ':' and '-', starting with a letter");
        }
        Objects.requireNonNull(kind, "kind");
        return new CronSchedule(name, CronExpression.parse(expression), ZoneOffset.UTC, kind, args,
                EnqueueOptions.defaults(), Misfire.FIRE_ONCE, false);
    }

    /** This schedule with its ticks on the wall clock of {@code zone}. */
    public CronSchedule inZone(ZoneId zone) {
        if (zone == null) {
            throw new InvalidOptionException("zone must not be null");
        }
        return new CronSchedule(name, expression, zone, kind, args, options, misfire, allowOverlap);
    }

    /**
     * This schedule in the zone named {@code zoneId} (e.g. {@code Europe/Paris}).
     *
     * @throws InvalidOptionException when no such zone exists
     */
    public CronSchedule inZone(String zoneId) {
        try {
            return inZone(ZoneId.of(Objects.requireNonNull(zoneId, "zoneId")));
        } catch (DateTimeException | NullPointerException e) {
            throw new InvalidOptionException("unknown time zone " + (zoneId == null ? "null" : "'" + zoneId + "'")
                    + ": use a region id such as Europe/Paris, or an offset such as +02:00 (" + e.getMessage() + ")");
        }
    }

    /**
     * This schedule's jobs with {@code options}: queue, priority and max attempts. A run-at time,
     * a delay or uniqueness belong to the schedule, not to its jobs; tags and metadata are not stored
     * with schedules.
     *
     * @throws InvalidOptionException when the options set run at, a delay, uniqueness, tags or metadata
     */
    public CronSchedule withOptions(EnqueueOptions options) {
        if (options == null) {
            throw new InvalidOptionException("options must not be null");
        }
        if (options.runAt() != null || options.delay() != null || options.unique() != null
                || !options.tags().isEmpty() || options.metadata() != null) {
            throw new InvalidOptionException("schedule " + name + ": options of a scheduled job take queue, priority"
                    + " and max attempts; the tick decides when it runs and the schedule whether it overlaps,"
                    + " and schedules do not store tags or metadata");
        }
        return new CronSchedule(name, expression, zone, kind, args, options, misfire, allowOverlap);
    }

    /** This schedule with missed ticks handled as {@code misfire} says. */
    public CronSchedule onMisfire(Misfire misfire) {
        if (misfire == null) {
            throw new InvalidOptionException("misfire must not be null");
        }
        return new CronSchedule(name, expression, zone, kind, args, options, misfire, allowOverlap);
    }

    /** This schedule enqueueing every tick, even while an earlier tick's job is unfinished. */
    public CronSchedule allowingOverlap() {
        return new CronSchedule(name, expression, zone, kind, args, options, misfire, true);
    }

    public String name() {
        return name;
    }

    /** The cron expression as given. */
    public String expression() {
        return expression.text();
    }

    public ZoneId zone() {
        return zone;
    }

    public JobKind<?> kind() {
        return kind;
    }

    public Object args() {
        return args;
    }

    public EnqueueOptions options() {
        return options;
    }

    public Misfire misfire() {
        return misfire;
    }

    public boolean allowsOverlap() {
        return allowOverlap;
    }

    /** The parsed expression. */
    CronExpression parsedExpression() {
        return expression;
    }

    @Override
    public String toString() {
        return "CronSchedule[" + name + ": '" + expression.text() + "' in " + zone + " -> " + kind.name() + "]";
    }
}
