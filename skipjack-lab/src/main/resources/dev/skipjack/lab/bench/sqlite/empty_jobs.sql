-- Empties the bench jobs table between runs on SQLite, which has no TRUNCATE (DELETE without a
-- WHERE clause is its truncate optimization).
DELETE FROM {{jobs}}
