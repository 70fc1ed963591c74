-- Operator discard, step 2 of 2: as cancel_jobs_apply.sql, ending in 'discarded'.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state = 'discarded', j.finished_at = {{now}}, j.lease_until = NULL
