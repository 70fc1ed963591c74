-- Promotion, step 2 of 2: makes the jobs promote_due_jobs.sql locked available.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state = 'available'
WHERE j.state IN ('scheduled', 'retryable')
