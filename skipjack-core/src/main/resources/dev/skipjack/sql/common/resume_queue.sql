-- Resumes a paused queue on every node.
-- Index: primary key of the queues table.
-- Parameters: queue name.
UPDATE {{queues}}
SET paused_at  = NULL,
    updated_at = {{now}}
WHERE name = ?
