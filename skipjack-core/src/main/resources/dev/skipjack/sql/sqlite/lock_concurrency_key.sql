-- Concurrency limits and ordered keys (F-12, F-13): the first statement of a key's admission
-- (ConcurrencyAdmission). On SQLite the admission's IMMEDIATE transaction already holds the one
-- write lock, so admissions take turns; this only records the key, as on the other backends.
-- Index: primary key.
-- Parameters: key.
INSERT INTO {{concurrency_keys}} (concurrency_key)
VALUES (?)
ON CONFLICT DO NOTHING
