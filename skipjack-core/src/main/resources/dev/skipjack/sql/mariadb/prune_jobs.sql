-- Retention (F-19): deletes one batch of jobs of one terminal state that finished longer ago than
-- that state's retention, oldest first. Run by the maintenance leader only, batch after batch.
-- A single-table DELETE takes ORDER BY and LIMIT here, reading the index in finish order.
-- Index: jobs_finished_idx (state, finished_at).
-- Parameters: state, retention in milliseconds, limit.
DELETE FROM {{jobs}}
WHERE state IN ('completed', 'discarded', 'cancelled')
  AND state = ?
  AND finished_at < {{now}} - INTERVAL (? * 1000) MICROSECOND
ORDER BY finished_at
LIMIT ?
