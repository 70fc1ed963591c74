-- Retention of finished workflows (F-14, F-19), step 3 of 3 in one transaction: the workflow rows.
-- Index: primary key, driven by the id list.
-- Parameters: workflow ids (JSON array).
DELETE w
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{workflows}} AS w FORCE INDEX (PRIMARY) ON w.id = c.id
WHERE w.state <> 'running'
