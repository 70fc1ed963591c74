-- depth: after a fill, what autovacuum would eventually do: planner statistics and a visibility map
-- for the new rows, so the drain measures a settled table, not the first scan after a bulk load.
VACUUM (ANALYZE) {{jobs}}
