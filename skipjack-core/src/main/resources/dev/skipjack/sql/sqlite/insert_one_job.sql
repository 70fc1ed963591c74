-- Inserts one job, with what the multi-row inserts do not carry: a unique key (F-10), tags,
-- metadata, and a concurrency key (F-12, F-13), with which it is inserted 'waiting' for a slot
-- (admitted by ConcurrencyAdmission right after the commit, or by the admission pass). Returns the new id, or no row for a unique job whose key a job already holds
-- (ON CONFLICT DO NOTHING: only a uniqueness conflict is passed over, never a
-- CHECK or NOT NULL failure). Due time as insert_jobs.sql.
-- WHERE true: SQLite's documented way to tell the upsert's ON from a join's ON after INSERT ... SELECT.
-- Index: jobs_unique_idx (the conflict), primary key.
-- Parameters: queue, kind, args (JSON text), priority, max attempts, unique key (or null),
--             whether a completed job keeps the key (0 or 1), run_at (epoch milliseconds, or null),
--             delay (milliseconds, or null), tags (JSON array, or null), metadata (JSON object, or null),
--             concurrency key, its limit, its order (all three null, or none), and a rate limit's
--             period in milliseconds (null unless the order is 'rate').
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, unique_key, unique_includes_completed, run_at, state,
                      tags, metadata, concurrency_key, concurrency_max, concurrency_order, concurrency_period_ms)
SELECT p.queue, p.kind, p.args, p.priority, p.max_attempts, p.unique_key, p.includes_completed, t.due,
       CASE WHEN ?12 IS NOT NULL THEN 'waiting'
            WHEN t.due > {{statement_now}} THEN 'scheduled' ELSE 'available' END,
       COALESCE(?10, '[]'), COALESCE(?11, '{}'), ?12, ?13, ?14, ?15
FROM (SELECT ?1 AS queue, ?2 AS kind, ?3 AS args, ?4 AS priority, ?5 AS max_attempts,
             ?6 AS unique_key, ?7 AS includes_completed) AS p,
     (SELECT CASE
                 WHEN ?8 IS NOT NULL THEN ?8 * 1000
                 WHEN ?9 IS NOT NULL THEN {{statement_now}} + ?9 * 1000
                 ELSE {{statement_now}}
             END AS due) AS t
WHERE true
ON CONFLICT DO NOTHING
RETURNING id
