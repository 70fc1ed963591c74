-- Audit check: jobs not in a terminal state after the run (stuck: running, available, retryable...).
-- Returns the count and up to 10 example ids as text.
-- Index: none; a scan run once after a test.
SELECT count(*), array_to_string((array_agg(id ORDER BY id))[1:10], ', ')
FROM {{jobs}}
WHERE state NOT IN ('completed', 'discarded', 'cancelled')
