-- Raw SQL ceiling on MariaDB/MySQL, claim step 2 of 2: marks the jobs ceiling_claim.sql locked as
-- running under a 30 s lease, driven by the id list (as Skipjack's claim_apply.sql).
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state        = 'running',
    j.attempt      = j.attempt + 1,
    j.attempted_at = UTC_TIMESTAMP(6),
    j.claimed_by   = 'ceiling',
    j.lease_until  = UTC_TIMESTAMP(6) + INTERVAL 30 SECOND
