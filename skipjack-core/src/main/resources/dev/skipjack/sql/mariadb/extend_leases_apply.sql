-- Heartbeat, step 2 of 2: extends the leases of the executions extend_leases.sql locked, on the
-- database clock.
-- Index: primary key.
-- Parameters: ids (JSON array), lease in milliseconds.
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.lease_until = {{now}} + INTERVAL (? * 1000) MICROSECOND
