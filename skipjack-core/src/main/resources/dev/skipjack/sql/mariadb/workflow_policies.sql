-- The failure policy of each given workflow (F-14). Set at enqueue and never changed, so a plain
-- read is enough.
-- Index: primary key.
-- Parameters: workflow ids (JSON array).
SELECT w.id, w.policy
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{workflows}} AS w FORCE INDEX (PRIMARY) ON w.id = c.id
