-- Retention (F-19): deletes one batch of jobs of one terminal state that finished longer ago than
-- that state's retention, oldest first. Run by the maintenance leader only, batch after batch.
-- Index: jobs_finished_idx (state, finished_at) WHERE state IN ('completed', 'discarded', 'cancelled').
-- Parameters: state, retention in milliseconds, limit.
DELETE FROM {{jobs}}
WHERE id IN (
        SELECT id
        FROM {{jobs}}
        WHERE state IN ('completed', 'discarded', 'cancelled')
          AND state = ?
          AND finished_at < {{now}} - ? * 1000
        ORDER BY finished_at
        LIMIT ?)
  AND state IN ('completed', 'discarded', 'cancelled')
