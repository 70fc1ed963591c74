-- A started node says it is alive (operators' view): inserted on its first round, refreshed after.
-- The row count is not read (Connector/J's CLIENT_FOUND_ROWS).
-- Index: primary key.
-- Parameters: worker id, queues (text, e.g. "mail:8, reports:2").
INSERT INTO {{nodes}} (worker_id, queues, started_at, last_seen_at)
VALUES (?, ?, {{now}}, {{now}})
ON DUPLICATE KEY UPDATE last_seen_at = VALUES(last_seen_at), queues = VALUES(queues)
