-- Stores a cron schedule (F-11): inserted when new; when it exists, replaced only if its
-- definition changed (another hash), and then with the next tick computed for the new definition.
-- A node re-declaring the same schedule at start changes nothing, so a restart never moves or
-- repeats a tick.
-- Index: primary key.
-- Parameters: name, expression, zone, kind, queue, args (JSON text), priority, max attempts,
--             misfire, allow overlap, definition hash, next tick.
INSERT INTO {{cron_schedules}} AS s (name, expression, zone, kind, queue, args, priority, max_attempts, misfire, allow_overlap, definition_hash, next_tick_at)
VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE
SET expression      = excluded.expression,
    zone            = excluded.zone,
    kind            = excluded.kind,
    queue           = excluded.queue,
    args            = excluded.args,
    priority        = excluded.priority,
    max_attempts    = excluded.max_attempts,
    misfire         = excluded.misfire,
    allow_overlap   = excluded.allow_overlap,
    definition_hash = excluded.definition_hash,
    next_tick_at    = excluded.next_tick_at,
    updated_at      = {{now}}
WHERE s.definition_hash <> excluded.definition_hash
