-- Pauses a queue on every node: workers read paused_queues.sql every half second.
-- A queue already paused keeps its first pause time.
-- Index: primary key of the queues table.
-- Parameters: queue name.
INSERT INTO {{queues}} AS q (name, paused_at, updated_at)
VALUES (?, {{now}}, {{now}})
ON CONFLICT (name) DO UPDATE
SET paused_at  = coalesce(q.paused_at, excluded.paused_at),
    updated_at = excluded.updated_at
