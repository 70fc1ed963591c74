-- Workflows (F-14): one job of a workflow. A job with parents is 'waiting' (the claim reads only
-- 'available' entries of its index) with pending_deps = its number of parents, until its parents'
-- completions release it; a job without parents is due as insert_jobs.sql's jobs are ('available',
-- or 'scheduled' until its run_at). Steps are inserted parents first, so a child's id is above its
-- parents'. The id is the generated key (MySQL has no INSERT ... RETURNING).
-- Parameters: queue, kind, args (JSON text), priority, max attempts, run_at (epoch milliseconds, or
--             null), delay (milliseconds, or null), workflow id, step name, number of parents.
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state, workflow_id, workflow_step, pending_deps)
SELECT t.queue, t.kind, t.args, t.priority, t.max_attempts, t.due,
       CASE WHEN t.pending_deps > 0 THEN 'waiting'
            WHEN t.due > {{statement_now}} THEN 'scheduled'
            ELSE 'available' END,
       t.workflow_id, t.workflow_step, t.pending_deps
FROM (
    SELECT p.queue, p.kind, p.args, p.priority, p.max_attempts, p.workflow_id, p.workflow_step, p.pending_deps,
           CASE
               WHEN p.run_at_ms IS NOT NULL
                   THEN CAST('1970-01-01 00:00:00' AS DATETIME(6)) + INTERVAL (p.run_at_ms * 1000) MICROSECOND
               WHEN p.delay_ms IS NOT NULL THEN {{statement_now}} + INTERVAL (p.delay_ms * 1000) MICROSECOND
               ELSE {{statement_now}}
           END AS due
    FROM (SELECT ? AS queue, ? AS kind, ? AS args, ? AS priority, ? AS max_attempts, ? AS run_at_ms,
                 ? AS delay_ms, ? AS workflow_id, ? AS workflow_step, ? AS pending_deps) AS p
) AS t
