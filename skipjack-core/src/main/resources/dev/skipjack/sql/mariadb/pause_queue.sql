-- Pauses a queue on every node: workers read paused_queues.sql every half second.
-- A queue already paused keeps its first pause time.
-- Index: primary key of the queues table.
-- Parameters: queue name.
INSERT INTO {{queues}} (name, paused_at, updated_at)
VALUES (?, {{now}}, {{now}})
ON DUPLICATE KEY UPDATE
    paused_at  = COALESCE(paused_at, VALUES(paused_at)),
    updated_at = VALUES(updated_at)
