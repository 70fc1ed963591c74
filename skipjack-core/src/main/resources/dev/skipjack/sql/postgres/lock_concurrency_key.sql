-- Concurrency limits and ordered keys (F-12, F-13): the first statement of a key's admission
-- (ConcurrencyAdmission). Locks the key's row, creating it the first time, until the admission
-- commits: two admissions of one key take turns, and the second counts the slots the first took.
-- ON CONFLICT DO UPDATE rather than DO NOTHING: only the update locks an existing row.
-- Index: primary key.
-- Parameters: key.
INSERT INTO {{concurrency_keys}} (concurrency_key)
VALUES (?)
ON CONFLICT (concurrency_key) DO UPDATE SET concurrency_key = EXCLUDED.concurrency_key
