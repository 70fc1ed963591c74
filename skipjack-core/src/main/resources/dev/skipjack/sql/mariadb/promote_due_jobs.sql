-- Makes scheduled and retryable jobs whose time has come available, step 1 of 2: locks and reads
-- them. Safe to run from every node at once: SKIP LOCKED splits the rows. No ORDER BY: over two
-- states it would need a filesort, which locks every due row; all due rows are promoted in the
-- same round anyway.
-- Index: jobs_due_idx (state, run_at).
-- Parameters: limit.
SELECT id, queue
FROM {{jobs}} FORCE INDEX ({{prefix}}jobs_due_idx)
WHERE state IN ('scheduled', 'retryable')
  AND run_at <= {{now}}
LIMIT ?
FOR UPDATE SKIP LOCKED
