-- Inserts a batch of jobs that share queue, kind, priority and max attempts and are due now: the
-- usual bulk enqueue. Same rows as insert_jobs.sql would write, but with one array (the args)
-- instead of seven, which the client builds and the server parses for every job.
-- run_at is the statement's time, as in insert_jobs.sql.
-- The ids come back as one row (as insert_jobs.sql's): the first id and the count, and the sorted
-- ids only when they are not consecutive (another inserter's ids in between). One row per job
-- cost the client as much as building the batch in a fresh JVM (the driver's row loop, a boxed
-- id and a sort per job).
-- Parameters: queue, kind, priority, max attempts, args (JSON text).
WITH inserted AS (
    INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
    SELECT ?::text, ?::text, a.args::jsonb, ?::smallint, ?::int, {{statement_now}}, 'available'
    FROM unnest(?::text[]) WITH ORDINALITY AS a(args, ord)
    ORDER BY a.ord
    RETURNING id
)
SELECT min(id), count(*), CASE WHEN max(id) - min(id) + 1 <> count(*) THEN array_agg(id ORDER BY id) END
FROM inserted
