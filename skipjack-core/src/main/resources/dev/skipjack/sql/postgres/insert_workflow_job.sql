-- Workflows (F-14): one job of a workflow. A job with parents is 'waiting' (outside every index the
-- claim reads) with pending_deps = its number of parents, until its parents' completions release
-- it; a job without parents is due as insert_jobs.sql's jobs are ('available', or 'scheduled' until
-- its run_at). Steps are inserted parents first, so a child's id is above its parents'.
-- Parameters: queue, kind, args (JSON text), priority, max attempts, run_at (epoch milliseconds, or
--             null), delay (milliseconds, or null), workflow id, step name, number of parents.
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state, workflow_id, workflow_step, pending_deps)
SELECT t.queue, t.kind, t.args::jsonb, t.priority, t.max_attempts, t.due,
       CASE WHEN t.pending_deps > 0 THEN 'waiting'
            WHEN t.due > {{statement_now}} THEN 'scheduled'
            ELSE 'available' END,
       t.workflow_id, t.workflow_step, t.pending_deps
FROM (
    SELECT v.*,
           CASE
               WHEN v.run_at_ms IS NOT NULL THEN to_timestamp(v.run_at_ms / 1000.0)
               WHEN v.delay_ms IS NOT NULL THEN {{statement_now}} + v.delay_ms * interval '1 millisecond'
               ELSE {{statement_now}}
           END AS due
    FROM (VALUES (?::text, ?::text, ?::text, ?::smallint, ?::int, ?::bigint, ?::bigint, ?::bigint, ?::text, ?::int))
         AS v(queue, kind, args, priority, max_attempts, run_at_ms, delay_ms, workflow_id, workflow_step, pending_deps)
) AS t
RETURNING id
