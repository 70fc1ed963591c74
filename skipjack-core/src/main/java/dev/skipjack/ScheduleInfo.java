package dev.skipjack;

import java.time.Instant;

/**
 * A cron schedule (F-11) as stored: its definition, the next tick it will enqueue, and the last
 * tick it enqueued with that tick's job (null before the first). Times are the database's.
 */
public record ScheduleInfo(String name, String expression, String zone, String kind, String queue, String argsJson,
                           Misfire misfire, boolean allowOverlap, Instant nextTickAt, Instant lastTickAt,
                           Long lastJobId) {
}
