-- Operator snooze, step 2 of 2: the jobs become scheduled until the delay has passed.
-- Index: primary key.
-- Parameters: ids (JSON array), delay in milliseconds.
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state = 'scheduled', j.run_at = {{now}} + INTERVAL (? * 1000) MICROSECOND
