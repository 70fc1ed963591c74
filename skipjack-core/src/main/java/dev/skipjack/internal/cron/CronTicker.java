package dev.skipjack.internal.cron;

import dev.skipjack.CronSchedule;
import dev.skipjack.EnqueueResult;
import dev.skipjack.Misfire;
import dev.skipjack.Unique;
import dev.skipjack.internal.enqueue.InsertRow;
import dev.skipjack.internal.enqueue.JobInserter;
import dev.skipjack.internal.enqueue.UniqueKeys;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Enqueues the due ticks of every cron schedule (F-11). Runs on every started node, with no
 * leader: each node reads the due schedules, and for each one moves {@code next_tick_at} on from
 * the value it read (advance_cron_schedule.sql); the one node whose update changed the row
 * enqueues the tick in that same transaction. A tick is recorded in cron_ticks before its job is
 * inserted, and a recorded tick is never enqueued again, so even a next tick moved back (a clock
 * stepped back, a redefinition) cannot repeat one. Times are the database's.
 */
public final class CronTicker {

    /** How far back SKIP still fires a tick: it is late, not missed. */
    static final Duration SKIP_TOLERANCE = Duration.ofMinutes(1);
    /** How long recorded ticks are kept; far longer than any clock step back. */
    static final Duration TICK_RETENTION = Duration.ofDays(30);
    static final Duration PRUNE_EVERY = Duration.ofMinutes(10);
    /** Stored when an expression has no tick left: MariaDB's DATETIME ends in year 9999. */
    static final Instant NEVER = Instant.ofEpochSecond(253_402_214_400L); // 9999-12-31T00:00:00Z, without loading a parser

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final JobInserter inserter;
    private final UniqueKeys uniqueKeys;
    private final Consumer<Set<String>> wake;
    /** Gives a tick's job the concurrency or rate limit of its kind, where this node knows it (F-12). */
    private final java.util.function.UnaryOperator<InsertRow> kindLimit;
    private final Map<String, CronExpression> parsed = new ConcurrentHashMap<>();
    private volatile Instant lastPrune = Instant.EPOCH;

    public CronTicker(DataSource dataSource, SqlStatements sql, JobInserter inserter, UniqueKeys uniqueKeys,
                      Consumer<Set<String>> wake) {
        this(dataSource, sql, inserter, uniqueKeys, wake, java.util.function.UnaryOperator.identity());
    }

    /**
     * @param kindLimit gives a tick's job its kind's limit (the job waits for its key's slot, and
     *                  the admission pass admits it); the identity for a node that knows none
     */
    public CronTicker(DataSource dataSource, SqlStatements sql, JobInserter inserter, UniqueKeys uniqueKeys,
                      Consumer<Set<String>> wake, java.util.function.UnaryOperator<InsertRow> kindLimit) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.inserter = inserter;
        this.uniqueKeys = uniqueKeys;
        this.wake = wake;
        this.kindLimit = kindLimit;
    }

    /** A stored schedule whose next tick has come. */
    record DueSchedule(String name, String expression, String zone, String kind, String queue, String argsJson,
                       int priority, int maxAttempts, Misfire misfire, boolean allowOverlap, Instant nextTickAt) {
    }

    /** One round: every due schedule's ticks enqueued (by this node or another), old ticks pruned now and then. */
    public void tickRound() throws SQLException {
        Instant now = databaseNow(dataSource, sql);
        List<DueSchedule> due = new ArrayList<>();
        try (Connection c = Transactions.autoCommit(dataSource);
             PreparedStatement ps = c.prepareStatement(sql.get("due_cron_schedules"))) {
            sql.dialect().setInstant(ps, 1, now);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    due.add(new DueSchedule(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getInt(7), rs.getInt(8),
                            Misfire.valueOf(rs.getString(9).toUpperCase(java.util.Locale.ROOT)), rs.getBoolean(10),
                            sql.dialect().getInstant(rs, 11)));
                }
            }
        }
        for (DueSchedule d : due) {
            fire(d, now);
        }
        if (Duration.between(lastPrune, now).compareTo(PRUNE_EVERY) >= 0) {
            lastPrune = now;
            try (Connection c = Transactions.autoCommit(dataSource);
                 PreparedStatement ps = c.prepareStatement(sql.get("prune_cron_ticks"))) {
                sql.dialect().setInstant(ps, 1, now.minus(TICK_RETENTION));
                ps.executeUpdate();
            }
        }
    }

    /** The database clock, whole seconds (as DatabaseClock shifts it). */
    public static Instant databaseNow(DataSource dataSource, SqlStatements sql) throws SQLException {
        try (Connection c = Transactions.autoCommit(dataSource);
             PreparedStatement ps = c.prepareStatement(sql.get("database_now"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return Instant.ofEpochSecond(rs.getLong(1));
        }
    }

    private void fire(DueSchedule d, Instant now) throws SQLException {
        CronExpression expression = parsed.computeIfAbsent(d.expression(), CronExpression::parse);
        ZoneId zone = ZoneId.of(d.zone());
        List<Instant> ticks = ticksToEnqueue(d, expression, zone, now);
        Instant next = expression.nextAfter(now, zone).orElse(NEVER);
        boolean fired = Transactions.inTransaction(dataSource, sql.dialect(), c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("advance_cron_schedule"))) {
                sql.dialect().setInstant(ps, 1, next);
                ps.setString(2, d.name());
                sql.dialect().setInstant(ps, 3, d.nextTickAt());
                if (ps.executeUpdate() != 1) {
                    return false; // another node took this tick
                }
            }
            Instant lastTick = null;
            Long lastJob = null;
            for (Instant tick : ticks) {
                Long tickId = sql.dialect().insertUnlessDuplicate(c, sql, "insert_cron_tick",
                        Params.of().text(d.name()).instant(tick));
                if (tickId == null) {
                    continue; // recorded before: never enqueued twice
                }
                EnqueueResult job = inserter.insert(c, List.of(row(d, tick))).get(0);
                try (PreparedStatement ps = c.prepareStatement(sql.get("set_cron_tick_job"))) {
                    ps.setLong(1, job.id());
                    ps.setBoolean(2, job.duplicate());
                    ps.setLong(3, tickId);
                    ps.executeUpdate();
                }
                lastTick = tick;
                lastJob = job.id();
            }
            if (lastTick != null) {
                try (PreparedStatement ps = c.prepareStatement(sql.get("record_cron_fired"))) {
                    sql.dialect().setInstant(ps, 1, lastTick);
                    ps.setLong(2, lastJob);
                    ps.setString(3, d.name());
                    ps.executeUpdate();
                }
            }
            return lastTick != null;
        });
        if (fired) {
            wake.accept(Set.of(d.queue()));
        }
    }

    /** The ticks from the stored next tick up to now that the misfire policy enqueues. */
    static List<Instant> ticksToEnqueue(DueSchedule d, CronExpression expression, ZoneId zone, Instant now) {
        Instant first = d.nextTickAt();
        return switch (d.misfire()) {
            // One job for however many were missed: the latest. After a clock stepped back the
            // earlier ones may have been enqueued already; the latest is the one most likely new.
            case FIRE_ONCE -> List.of(latestTick(expression, zone, first, now));
            case SKIP -> {
                Instant latest = latestTick(expression, zone, first, now);
                yield Duration.between(latest, now).compareTo(SKIP_TOLERANCE) <= 0 ? List.of(latest) : List.of();
            }
            case BACKFILL -> newestTicks(expression, zone, first, now, CronSchedule.BACKFILL_LIMIT);
        };
    }

    /**
     * The newest {@code limit} ticks from {@code first} up to {@code now}, oldest first: after a
     * long outage the latest tick is among them and the oldest are the ones skipped. Walks from a
     * recent time when that holds enough ticks, so a per-second schedule down for a day is not
     * walked tick by tick.
     */
    static List<Instant> newestTicks(CronExpression expression, ZoneId zone, Instant first, Instant now, int limit) {
        // Up to four years and a century: a schedule dense on rare days (every second of 29 February)
        // is not walked from a stored tick years back.
        for (Duration window : List.of(Duration.ofMinutes(1), Duration.ofHours(1), Duration.ofDays(1),
                Duration.ofDays(31), Duration.ofDays(366), Duration.ofDays(1461), Duration.ofDays(36525))) {
            Instant from = now.minus(window);
            if (!from.isAfter(first)) {
                break;
            }
            List<Instant> recent = newestTicksFrom(expression, zone, expression.nextAfter(from, zone).orElse(null), now, limit);
            if (recent.size() == limit) {
                return recent;
            }
        }
        return newestTicksFrom(expression, zone, first, now, limit);
    }

    private static List<Instant> newestTicksFrom(CronExpression expression, ZoneId zone, Instant start, Instant now,
                                                 int limit) {
        ArrayDeque<Instant> newest = new ArrayDeque<>(limit);
        for (Instant t = start; t != null && !t.isAfter(now); t = expression.nextAfter(t, zone).orElse(null)) {
            if (newest.size() == limit) {
                newest.removeFirst();
            }
            newest.addLast(t);
        }
        return new ArrayList<>(newest);
    }

    /**
     * The last tick at or before {@code now}, {@code first} being one. Walks from a recent tick
     * when there is one, so a per-second schedule down for a day is not walked tick by tick.
     */
    static Instant latestTick(CronExpression expression, ZoneId zone, Instant first, Instant now) {
        Instant last = first;
        for (Duration window : List.of(Duration.ofMinutes(1), Duration.ofHours(1), Duration.ofDays(1))) {
            Instant from = now.minus(window);
            if (!from.isAfter(first)) {
                break;
            }
            Instant recent = expression.nextAfter(from, zone).orElse(null);
            if (recent != null && !recent.isAfter(now)) {
                last = recent;
                break;
            }
        }
        for (Instant next = expression.nextAfter(last, zone).orElse(null); next != null && !next.isAfter(now);
             next = expression.nextAfter(last, zone).orElse(null)) {
            last = next;
        }
        return last;
    }

    /** The job of one tick: due at the tick; unique per schedule unless the schedule allows overlap. */
    private InsertRow row(DueSchedule d, Instant tick) {
        String uniqueKey = d.allowOverlap() ? null
                : uniqueKeys.key(Unique.byKey(overlapKey(d.name())), d.kind(), d.queue(), d.argsJson(), tick.toEpochMilli());
        return kindLimit.apply(new InsertRow(d.queue(), d.kind(), d.argsJson(), d.priority(), d.maxAttempts(),
                tick.toEpochMilli(), null, uniqueKey, false, null, null));
    }

    /** The unique key that keeps a schedule's ticks from overlapping. */
    public static String overlapKey(String scheduleName) {
        return "cron:" + scheduleName;
    }
}
