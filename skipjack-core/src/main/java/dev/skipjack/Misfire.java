package dev.skipjack;

/**
 * What a cron schedule (F-11) does with ticks that passed while no node ran it (everything down,
 * a deploy, a paused database): decided when a node next finds the schedule overdue.
 */
public enum Misfire {
    /** Enqueue one job for the missed ticks (the latest), then go on from the next tick. The default. */
    FIRE_ONCE,
    /** Enqueue the latest missed tick only if it is at most a minute late; go on from the next tick. */
    SKIP,
    /**
     * Enqueue one job per missed tick, oldest first, up to {@link CronSchedule#BACKFILL_LIMIT} per
     * catch-up: the newest ones, the latest missed tick included; older ticks beyond that are skipped.
     */
    BACKFILL
}
