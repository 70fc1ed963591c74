-- Workflows (F-14), after count_down_workflows.sql in the same transaction, as its own statement (so
-- it reads remaining as the count-down left it, not an assignment of the same UPDATE): a running
-- workflow with no job left to end finishes, failed if any job was discarded, else cancelled if
-- any was cancelled, else completed. No assignment reads a column another one changes.
-- Index: primary key, driven by the id list; jobs_workflow_step_idx (workflow_id, ...) for the
-- states of its jobs.
-- Parameters: workflow ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{workflows}} AS w FORCE INDEX (PRIMARY) ON w.id = c.id
SET w.state       = CASE
                        WHEN EXISTS (SELECT 1 FROM {{jobs}} AS j
                                     WHERE j.workflow_id = w.id AND j.state = 'discarded') THEN 'failed'
                        WHEN EXISTS (SELECT 1 FROM {{jobs}} AS j
                                     WHERE j.workflow_id = w.id AND j.state = 'cancelled') THEN 'cancelled'
                        ELSE 'completed'
                    END,
    w.finished_at = {{statement_now}}
WHERE w.remaining = 0
  AND w.state = 'running'
