-- Retention (F-19): deletes one batch of jobs of one terminal state that finished longer ago than
-- that state's retention, oldest first. Run by the maintenance leader only, batch after batch.
-- The literal state list repeats the index predicate so that the generic plan of this prepared
-- statement can still use the partial index (a bound state alone does not imply it). Rows held by
-- an operator's transaction (a retry moving the job out of its terminal state) are skipped, never
-- waited for, and FOR UPDATE re-checks the condition on the latest row version, so a job retried
-- after the subquery looked at it is not deleted.
-- The ids are collected into an array, so the DELETE looks them up by primary key even in the
-- generic plan (a join with the subquery would be planned for an unknown LIMIT, as a table scan).
-- Jobs of a workflow (F-14) are not pruned here: they go with their workflow, once it finished
-- (finished_workflows.sql and delete_workflow_*.sql), so a running workflow never loses a job.
-- A rate-limited job (F-12) is kept while its start still counts against its key's rate
-- (count_rate_holders.sql reads the starts from the jobs): pruned earlier, with a retention under
-- the rate's period, its start was forgotten and the next job admitted at once.
-- Index: jobs_finished_idx (state, finished_at) WHERE state IN ('completed', 'discarded', 'cancelled'),
-- then the primary key.
-- Parameters: state, retention in milliseconds, limit.
DELETE FROM {{jobs}}
WHERE id = ANY (ARRAY(
        SELECT id
        FROM {{jobs}}
        WHERE state IN ('completed', 'discarded', 'cancelled')
          AND state = ?
          AND finished_at < {{now}} - ? * interval '1 millisecond'
          AND workflow_id IS NULL
          AND (concurrency_period_ms IS NULL OR attempted_at IS NULL
               OR attempted_at <= {{now}} - concurrency_period_ms * interval '1 millisecond')
        ORDER BY finished_at
        LIMIT ?
        FOR UPDATE SKIP LOCKED))
  AND state IN ('completed', 'discarded', 'cancelled')
