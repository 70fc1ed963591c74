-- Every registered node with the database's now, for the operators' view; NodeRegistry leaves out
-- the ones not seen lately.
-- Index: primary key (the table has a row per started client).
SELECT worker_id, queues, started_at, last_seen_at, {{now}}
FROM {{nodes}}
ORDER BY worker_id
