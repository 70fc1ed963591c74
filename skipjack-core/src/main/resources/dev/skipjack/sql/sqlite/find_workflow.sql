-- One workflow by id, for inspection (F-14).
-- Index: primary key.
-- Parameters: workflow id.
SELECT id, name, state, policy, remaining, created_at, finished_at
FROM {{workflows}}
WHERE id = ?
