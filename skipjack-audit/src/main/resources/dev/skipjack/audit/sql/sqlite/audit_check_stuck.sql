-- Audit check: jobs not in a terminal state after the run (stuck: running, available, retryable...).
-- Returns the count and up to 10 example ids as text.
-- Index: none; a scan run once after a test.
WITH hit AS (
    SELECT id FROM {{jobs}} WHERE state NOT IN ('completed', 'discarded', 'cancelled')
)
SELECT (SELECT count(*) FROM hit),
       (SELECT group_concat(id, ', ' ORDER BY id) FROM (SELECT id FROM hit ORDER BY id LIMIT 10))
