-- Whether any running job's lease expired: a read, before the rescue's write transaction, so a
-- round with nothing to rescue takes no lock (SQLite's one write lock above all: the heartbeats
-- need it).
-- Index: jobs_lease_idx.
SELECT 1
FROM {{jobs}}
WHERE state = 'running'
  AND lease_until < {{now}}
LIMIT 1
