-- The failure policy of each given workflow (F-14). Set at enqueue and never changed, so a plain
-- read is enough.
-- Index: primary key.
-- Parameters: workflow ids.
SELECT id, policy
FROM {{workflows}}
WHERE id = ANY (?::bigint[])
