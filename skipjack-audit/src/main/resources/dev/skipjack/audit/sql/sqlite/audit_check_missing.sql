-- Audit check: how many job rows exist at all (compared with how many the driver enqueued).
-- Index: none; a full count, run once after a test.
SELECT count(*) FROM {{jobs}}
