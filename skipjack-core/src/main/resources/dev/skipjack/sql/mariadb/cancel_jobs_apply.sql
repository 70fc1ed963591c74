-- Operator cancel, step 2 of 2: a running lease-mode job is not ended here but asked to stop
-- (stop_requested = 'cancelled'): it keeps its lease, its key's slot and its unique key until its
-- worker ends the execution, or the rescue does at the lease's expiry, as on PostgreSQL (see
-- postgres/cancel_jobs.sql). Every other job ends at once.
-- The running rows keep their state, so every assignment reads the same j.state whatever order
-- the server evaluates them in (a multi-table UPDATE promises none).
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.stop_requested = CASE WHEN j.state = 'running' THEN 'cancelled' END,
    j.finished_at    = CASE WHEN j.state = 'running' THEN NULL ELSE {{now}} END,
    j.lease_until    = CASE WHEN j.state = 'running' THEN j.lease_until END,
    j.state          = CASE WHEN j.state = 'running' THEN 'running' ELSE 'cancelled' END
