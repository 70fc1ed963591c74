-- Every queue that has jobs or a settings row, with its pause time and job counts per state.
-- No FULL JOIN before SQLite 3.39: queues with jobs, then settings rows of queues without any.
-- Index: none for the counts (they need every row); a scan of the claim index cannot answer the
-- NOT EXISTS (it holds available jobs only), so that reads the jobs table per settings row.
SELECT c.queue, q.paused_at, c.state, c.n
FROM (SELECT queue, state, count(*) AS n FROM {{jobs}} GROUP BY queue, state) AS c
LEFT JOIN {{queues}} AS q ON q.name = c.queue
UNION ALL
SELECT q.name, q.paused_at, NULL, 0
FROM {{queues}} AS q
WHERE NOT EXISTS (SELECT 1 FROM {{jobs}} AS j WHERE j.queue = q.name)
ORDER BY 1, 3
