-- Transactional claim, step 2 of 2: marks the jobs claim_transactional.sql locked as running,
-- in the job's own transaction, by primary key.
-- Index: primary key.
-- Parameters: ids (JSON array), worker id, lease in milliseconds.
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state        = 'running',
    j.attempt      = j.attempt + 1,
    j.attempted_at = {{now}},
    j.claimed_by   = ?,
    j.lease_until  = {{now}} + INTERVAL (? * 1000) MICROSECOND
