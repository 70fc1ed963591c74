-- Pauses a queue on every node: workers read paused_queues.sql every half second.
-- Index: primary key of the queues table.
-- Parameters: queue name.
INSERT INTO {{queues}} (name, paused_at, updated_at)
VALUES (?, {{now}}, {{now}})
ON CONFLICT (name) DO UPDATE
SET paused_at  = coalesce({{queues}}.paused_at, {{now}}),
    updated_at = {{now}}
