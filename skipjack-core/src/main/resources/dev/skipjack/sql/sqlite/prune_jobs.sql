-- Retention (F-19): deletes one batch of jobs of one terminal state that finished longer ago than
-- that state's retention, oldest first. Run by the maintenance leader only, batch after batch.
-- Jobs of a workflow (F-14) are not pruned here: they go with their workflow, once it finished
-- (finished_workflows.sql and delete_workflow_*.sql), so a running workflow never loses a job.
-- A rate-limited job (F-12) is kept while its start still counts against its key's rate
-- (count_rate_holders.sql reads the starts from the jobs): pruned earlier, with a retention under
-- the rate's period, its start was forgotten and the next job admitted at once. Checked by
-- primary key in a subquery: as a condition on the row itself, its columns outside the index made
-- SQLite sort the batch (a temporary b-tree) instead of reading the index in finish order.
-- Index: jobs_finished_idx (state, finished_at, workflow_id) WHERE state IN ('completed', 'discarded',
-- 'cancelled'), covering: read in finish order, no temporary b-tree (SqlitePlanTest).
-- Parameters: state, retention in milliseconds, limit.
DELETE FROM {{jobs}}
WHERE id IN (
        SELECT id
        FROM {{jobs}} AS finished
        WHERE state IN ('completed', 'discarded', 'cancelled')
          AND state = ?
          AND finished_at < {{now}} - ? * 1000
          AND workflow_id IS NULL
          AND NOT EXISTS (
                SELECT 1
                FROM {{jobs}} AS rate_held
                WHERE rate_held.id = finished.id
                  AND rate_held.concurrency_period_ms IS NOT NULL
                  AND rate_held.attempted_at > {{now}} - rate_held.concurrency_period_ms * 1000)
        ORDER BY finished_at
        LIMIT ?)
  AND state IN ('completed', 'discarded', 'cancelled')
