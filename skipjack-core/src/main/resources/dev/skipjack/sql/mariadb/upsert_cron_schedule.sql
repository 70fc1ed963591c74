-- Stores a cron schedule (F-11): inserted when new; when it exists, replaced only if its
-- definition changed (another hash), and then with the next tick computed for the new definition.
-- A node re-declaring the same schedule at start changes nothing, so a restart never moves or
-- repeats a tick.
-- This family assigns left to right and a later assignment reads the earlier ones' new values:
-- every comparison with the old hash comes before definition_hash is assigned, last. The row count
-- is not read (Connector/J's CLIENT_FOUND_ROWS makes it say nothing).
-- Index: primary key.
-- Parameters: name, expression, zone, kind, queue, args (JSON text), priority, max attempts,
--             misfire, allow overlap, definition hash, next tick.
INSERT INTO {{cron_schedules}} (name, expression, zone, kind, queue, args, priority, max_attempts, misfire, allow_overlap, definition_hash, next_tick_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON DUPLICATE KEY UPDATE
    next_tick_at    = IF(definition_hash <> VALUES(definition_hash), VALUES(next_tick_at), next_tick_at),
    updated_at      = IF(definition_hash <> VALUES(definition_hash), {{now}}, updated_at),
    expression      = VALUES(expression),
    zone            = VALUES(zone),
    kind            = VALUES(kind),
    queue           = VALUES(queue),
    args            = VALUES(args),
    priority        = VALUES(priority),
    max_attempts    = VALUES(max_attempts),
    misfire         = VALUES(misfire),
    allow_overlap   = VALUES(allow_overlap),
    definition_hash = VALUES(definition_hash)
