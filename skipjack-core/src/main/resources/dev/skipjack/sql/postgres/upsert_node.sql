-- A started node says it is alive (operators' view): inserted on its first round, refreshed after.
-- A run's first round also sets started_at: the row may be an earlier run's with the same worker id
-- (a crashed process started again, or a stop whose removal did not happen).
-- Index: primary key.
-- Parameters: worker id, queues (text, e.g. "mail:8, reports:2"), whether this is the run's first round.
INSERT INTO {{nodes}} AS n (worker_id, queues, started_at, last_seen_at)
VALUES (?, ?, {{now}}, {{now}})
ON CONFLICT (worker_id) DO UPDATE SET last_seen_at = excluded.last_seen_at, queues = excluded.queues,
    started_at = CASE WHEN ? THEN excluded.started_at ELSE n.started_at END
