-- Claim, step 2 of 2, for lease and transactional claims alike: marks the jobs claim.sql or
-- claim_transactional.sql locked as running under this worker's lease, by primary key. The id
-- list drives the join (STRAIGHT_JOIN): on a small table the optimizer otherwise scans PRIMARY
-- first and waits on every row another transaction holds (seen: a claim stuck behind an
-- enqueue's uncommitted insert).
-- stop_requested is reset: an operator's request to stop a running job belongs to the execution
-- it was made for, never to the next one.
-- Index: primary key.
-- Parameters: ids (JSON array), worker id, lease in milliseconds.
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state        = 'running',
    j.attempt      = j.attempt + 1,
    j.attempted_at = {{now}},
    j.claimed_by   = ?,
    j.lease_until  = {{now}} + INTERVAL (? * 1000) MICROSECOND,
    j.stop_requested = NULL
