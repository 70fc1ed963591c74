-- Retention of finished workflows (F-14, F-19), step 3 of 3 in one transaction: the workflow rows.
-- Index: primary key.
-- Parameters: workflow ids (JSON array).
DELETE FROM {{workflows}}
WHERE id IN (SELECT value FROM json_each(?))
  AND state <> 'running'
