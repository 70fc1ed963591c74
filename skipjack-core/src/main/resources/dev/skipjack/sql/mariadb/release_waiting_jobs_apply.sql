-- Workflows (F-14), step 2 of 2: the children release_waiting_jobs.sql locked become available
-- (scheduled, when their own run_at is still ahead).
-- Index: primary key, driven by the id list.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state = CASE WHEN j.run_at > {{statement_now}} THEN 'scheduled' ELSE 'available' END
WHERE j.state = 'waiting'
