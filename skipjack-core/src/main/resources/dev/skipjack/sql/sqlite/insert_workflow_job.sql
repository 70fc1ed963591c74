-- Workflows (F-14): one job of a workflow. A job with parents is 'waiting' (outside every index the
-- claim reads) with pending_deps = its number of parents, until its parents' completions release
-- it; a job without parents is due as insert_jobs.sql's jobs are ('available', or 'scheduled' until
-- its run_at). Steps are inserted parents first, so a child's id is above its parents'.
-- Parameters: ?1 queue, ?2 kind, ?3 args (JSON text), ?4 priority, ?5 max attempts, ?6 run_at (epoch
--             milliseconds, or null), ?7 delay (milliseconds, or null), ?8 workflow id, ?9 step name,
--             ?10 number of parents.
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state, workflow_id, workflow_step, pending_deps)
SELECT ?1, ?2, ?3, ?4, ?5, t.due,
       CASE WHEN ?10 > 0 THEN 'waiting'
            WHEN t.due > {{statement_now}} THEN 'scheduled'
            ELSE 'available' END,
       ?8, ?9, ?10
FROM (SELECT CASE
                 WHEN ?6 IS NOT NULL THEN ?6 * 1000
                 WHEN ?7 IS NOT NULL THEN {{statement_now}} + ?7 * 1000
                 ELSE {{statement_now}}
             END AS due) AS t
RETURNING id
