-- Cron schedules whose next tick has come (F-11), oldest first. Every started node reads them;
-- advance_cron_schedule.sql decides which node enqueues each tick.
-- Index: cron_schedules_due_idx.
-- Parameters: now (the database clock).
SELECT name, expression, zone, kind, queue, args, priority, max_attempts, misfire, allow_overlap, next_tick_at
FROM {{cron_schedules}}
WHERE next_tick_at <= ?
ORDER BY next_tick_at
LIMIT 100
