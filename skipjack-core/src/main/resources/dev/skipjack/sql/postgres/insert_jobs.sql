-- Inserts a batch of jobs in one statement, one array element per job.
-- run_at is the given instant, or the database clock plus the given delay, or now (the statement's
-- time, not the transaction's: enqueue may run late in a long caller transaction); a job due now
-- is 'available' at once, a later one 'scheduled' until promote_due_jobs.sql makes it available.
-- The ids come back as one row: the first id and the count, and the sorted ids only when they are
-- not consecutive (see insert_jobs_uniform.sql).
-- Parameters: queues, kinds, args (JSON text), priorities, max attempts,
--             run_at (epoch milliseconds, or null), delay (milliseconds, or null).
WITH inserted AS (
    INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
    SELECT t.queue,
           t.kind,
           t.args::jsonb,
           t.priority,
           t.max_attempts,
           t.due,
           CASE WHEN t.due > {{statement_now}} THEN 'scheduled' ELSE 'available' END
    FROM (
        SELECT u.queue, u.kind, u.args, u.priority, u.max_attempts, u.ord,
               CASE
                   WHEN u.run_at_ms IS NOT NULL THEN to_timestamp(u.run_at_ms / 1000.0)
                   WHEN u.delay_ms IS NOT NULL THEN {{statement_now}} + u.delay_ms * interval '1 millisecond'
                   ELSE {{statement_now}}
               END AS due
        FROM unnest(?::text[], ?::text[], ?::text[], ?::smallint[], ?::int[], ?::bigint[], ?::bigint[])
             WITH ORDINALITY AS u(queue, kind, args, priority, max_attempts, run_at_ms, delay_ms, ord)
    ) AS t
    ORDER BY t.ord
    RETURNING id
)
SELECT min(id), count(*), CASE WHEN max(id) - min(id) + 1 <> count(*) THEN array_agg(id ORDER BY id) END
FROM inserted
