-- Every queue that has jobs or a settings row, with its pause time and job counts per state.
-- Index: none; a sequential scan of the jobs table (counts need every row). Operators call it,
-- workers never do.
SELECT coalesce(c.queue, q.name) AS queue, q.paused_at, c.state, coalesce(c.n, 0)
FROM (SELECT queue, state, count(*) AS n FROM {{jobs}} GROUP BY queue, state) AS c
FULL JOIN {{queues}} AS q ON q.name = c.queue
ORDER BY 1, 3
