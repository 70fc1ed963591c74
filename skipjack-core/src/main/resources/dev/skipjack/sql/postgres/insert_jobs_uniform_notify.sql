-- insert_jobs_uniform.sql and notify_jobs_inserted.sql in one statement, for a batch that fits one
-- insert and wakes listening workers (F-16): one round trip instead of two, and in auto-commit one
-- statement is its own transaction, so a single job's enqueue needs no BEGIN and COMMIT around it
-- (a third round trip). The notification is still delivered at commit and never for a rolled-back
-- insert (F-6). pg_notify sits in the aggregate's select list: it reads no row, so it runs once
-- for the one result row, not once per job.
-- Parameters: queue, kind, priority, max attempts, args (JSON text), channel, payload.
WITH inserted AS (
    INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
    SELECT ?::text, ?::text, a.args::jsonb, ?::smallint, ?::int, {{statement_now}}, 'available'
    FROM unnest(?::text[]) WITH ORDINALITY AS a(args, ord)
    ORDER BY a.ord
    RETURNING id
)
SELECT min(id), count(*), CASE WHEN max(id) - min(id) + 1 <> count(*) THEN array_agg(id ORDER BY id) END,
       pg_notify(?::text, ?::text)::text
FROM inserted
