-- The names of paused queues, read by every worker node every half second.
-- The queues table holds one row per queue ever paused, so this is a scan of a handful of rows.
SELECT name
FROM {{queues}}
WHERE paused_at IS NOT NULL
