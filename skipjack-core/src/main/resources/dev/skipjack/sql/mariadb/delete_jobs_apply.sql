-- Operator delete, step 2 of 2: removes the jobs delete_jobs.sql locked.
-- Index: primary key.
-- Parameters: ids (JSON array).
DELETE j
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
