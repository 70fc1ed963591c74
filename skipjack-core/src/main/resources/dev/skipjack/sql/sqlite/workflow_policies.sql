-- The failure policy of each given workflow (F-14). Set at enqueue and never changed, so a plain
-- read is enough.
-- Index: primary key.
-- Parameters: workflow ids (JSON array).
SELECT id, policy
FROM {{workflows}}
WHERE id IN (SELECT value FROM json_each(?))
