-- Operator cancel, step 2 of 2: a running lease-mode job is marked cancelled and loses its lease;
-- its handler is not interrupted, but its outcome is then ignored because complete_jobs.sql and
-- record_outcomes.sql only touch rows still 'running'.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state = 'cancelled', j.finished_at = {{now}}, j.lease_until = NULL
