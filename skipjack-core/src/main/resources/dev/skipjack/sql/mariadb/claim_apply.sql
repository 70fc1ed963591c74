-- Claim, step 2 of 2: marks the jobs claim.sql locked as running under this worker's lease, by
-- primary key (FORCE INDEX: an IN list on a small table may otherwise scan, and lock, PRIMARY).
-- Index: primary key.
-- Parameters: ids (JSON array), worker id, lease in milliseconds.
UPDATE {{jobs}} AS j FORCE INDEX (PRIMARY)
JOIN JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c ON j.id = c.id
SET j.state        = 'running',
    j.attempt      = j.attempt + 1,
    j.attempted_at = {{now}},
    j.claimed_by   = ?,
    j.lease_until  = {{now}} + INTERVAL (? * 1000) MICROSECOND
