-- Inserts a batch of jobs that share queue, kind, priority and max attempts and are due now: the
-- usual bulk enqueue. Same rows as insert_jobs.sql would write, but with one array (the args)
-- instead of seven, which the client builds and the server parses for every job.
-- run_at is the statement's time, as in insert_jobs.sql.
-- Parameters: queue, kind, priority, max attempts, args (JSON text).
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
SELECT ?::text, ?::text, a.args::jsonb, ?::smallint, ?::int, {{statement_now}}, 'available'
FROM unnest(?::text[]) WITH ORDINALITY AS a(args, ord)
ORDER BY a.ord
RETURNING id
