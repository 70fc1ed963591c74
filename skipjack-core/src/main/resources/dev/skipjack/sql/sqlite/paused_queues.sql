-- The names of paused queues, read by every worker node every half second.
SELECT name
FROM {{queues}}
WHERE paused_at IS NOT NULL
