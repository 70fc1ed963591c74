-- Moves a schedule's next tick on (F-11), only from the value this node read: of all nodes that
-- found the tick due, exactly one changes a row, and only that one enqueues the tick, in the same
-- transaction. A plain UPDATE's row count (matched rows) is exact on every backend.
-- Index: primary key.
-- Parameters: new next tick, name, next tick as read.
UPDATE {{cron_schedules}}
SET next_tick_at = ?
WHERE name = ? AND next_tick_at = ?
