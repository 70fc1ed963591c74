-- Operator retry, step 2 of 2: available now; a job that has spent its attempts gets one more, so
-- it can run. Errors are kept as history.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state = 'available', j.run_at = {{now}}, j.finished_at = NULL,
    j.max_attempts = GREATEST(j.max_attempts, j.attempt + 1)
