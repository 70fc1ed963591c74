-- A started node says it is alive (operators' view): inserted on its first round, refreshed after.
-- Index: primary key.
-- Parameters: worker id, queues (text, e.g. "mail:8, reports:2").
INSERT INTO {{nodes}} (worker_id, queues, started_at, last_seen_at)
VALUES (?, ?, {{now}}, {{now}})
ON CONFLICT (worker_id) DO UPDATE SET last_seen_at = excluded.last_seen_at, queues = excluded.queues
