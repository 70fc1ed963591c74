-- Jobs rescued from an expired lease after a point in time (the first failover): the rescuer, a
-- leader-only task, ran on the new primary.
-- Index: none; a scan once after the run.
-- Parameters: the time (timestamptz).
SELECT count(*) FROM {{jobs}} j, jsonb_array_elements(j.errors) e
WHERE e ->> 'class' = 'LeaseExpired' AND (e ->> 'at')::timestamptz > ?
