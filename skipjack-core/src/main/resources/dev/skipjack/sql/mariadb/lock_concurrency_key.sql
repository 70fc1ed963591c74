-- Concurrency limits and ordered keys (F-12, F-13): the first statement of a key's admission
-- (ConcurrencyAdmission). Locks the key's row, creating it the first time, until the admission
-- commits: an insert that meets the primary key takes an exclusive lock on the row it met, so two
-- admissions of one key take turns, and the second counts the slots the first took.
-- Index: primary key.
-- Parameters: key.
INSERT INTO {{concurrency_keys}} (concurrency_key)
VALUES (?)
ON DUPLICATE KEY UPDATE concurrency_key = concurrency_key
