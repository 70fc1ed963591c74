-- Raw SQL ceiling on MariaDB/MySQL, completion: one UPDATE per claimed batch, driven by the id list.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state       = 'completed',
    j.finished_at = UTC_TIMESTAMP(6),
    j.lease_until = NULL
