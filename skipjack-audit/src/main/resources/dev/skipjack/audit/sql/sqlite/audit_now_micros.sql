-- The database clock now in epoch microseconds (millisecond resolution), for started_at and the
-- tests' time checks.
-- Index: none.
SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000
