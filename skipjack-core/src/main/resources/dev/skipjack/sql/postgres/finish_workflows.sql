-- Workflows (F-14), after count_down_workflows.sql in the same transaction, as its own statement: a
-- running workflow with no job left to end finishes, failed if any job was discarded, else
-- cancelled if any was cancelled, else completed.
-- Index: primary key; jobs_workflow_step_idx (workflow_id, ...) for the states of its jobs.
-- Parameters: workflow ids.
UPDATE {{workflows}} AS w
SET state       = CASE
                      WHEN EXISTS (SELECT 1 FROM {{jobs}} AS j WHERE j.workflow_id = w.id AND j.state = 'discarded')
                          THEN 'failed'
                      WHEN EXISTS (SELECT 1 FROM {{jobs}} AS j WHERE j.workflow_id = w.id AND j.state = 'cancelled')
                          THEN 'cancelled'
                      ELSE 'completed'
                  END,
    finished_at = {{statement_now}}
WHERE w.id = ANY (?::bigint[])
  AND w.remaining = 0
  AND w.state = 'running'
