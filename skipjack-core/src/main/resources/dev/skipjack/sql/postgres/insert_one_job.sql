-- Inserts one job, with what the multi-row inserts do not carry: a unique key (F-10), tags,
-- metadata, and a concurrency key (F-12, F-13), with which it is inserted 'waiting' for a slot
-- (admitted by ConcurrencyAdmission right after the commit, or by the admission pass). Returns the new id, or no row for a unique job whose key a job already holds. ON CONFLICT DO NOTHING, never a caught error: a failed statement would abort
-- the caller's transaction. A conflicting insert still in flight in another transaction is waited
-- for, then decides: committed, this is a duplicate; rolled back, this one is inserted. So is a
-- job running in transactional mode (its claim's update is uncommitted until the job finishes).
-- Due time as insert_jobs.sql.
-- Index: jobs_unique_idx (the conflict), primary key.
-- Parameters: queue, kind, args (JSON text), priority, max attempts, unique key (or null), whether
--             a completed job keeps the key, run_at (epoch milliseconds, or null), delay
--             (milliseconds, or null), tags (JSON array, or null), metadata (JSON object, or null),
--             concurrency key, its limit, its order (all three null, or none), and a rate limit's
--             period in milliseconds (null unless the order is 'rate').
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, unique_key, unique_includes_completed, run_at, state,
                      tags, metadata, concurrency_key, concurrency_max, concurrency_order, concurrency_period_ms)
SELECT p.queue, p.kind, p.args::jsonb, p.priority, p.max_attempts, p.unique_key, p.includes_completed, t.due,
       CASE WHEN p.concurrency_key IS NOT NULL THEN 'waiting'
            WHEN t.due > {{statement_now}} THEN 'scheduled' ELSE 'available' END,
       ARRAY(SELECT jsonb_array_elements_text(p.tags::jsonb)), COALESCE(p.metadata::jsonb, '{}'),
       p.concurrency_key, p.concurrency_max, p.concurrency_order, p.concurrency_period_ms
FROM (SELECT ?::text AS queue, ?::text AS kind, ?::text AS args, ?::smallint AS priority, ?::int AS max_attempts,
             ?::text AS unique_key, ?::boolean AS includes_completed, ?::bigint AS run_at_ms, ?::bigint AS delay_ms,
             ?::text AS tags, ?::text AS metadata,
             ?::text AS concurrency_key, ?::int AS concurrency_max, ?::text AS concurrency_order,
             ?::bigint AS concurrency_period_ms) AS p,
     LATERAL (SELECT CASE
                         WHEN p.run_at_ms IS NOT NULL THEN to_timestamp(p.run_at_ms / 1000.0)
                         WHEN p.delay_ms IS NOT NULL THEN {{statement_now}} + p.delay_ms * interval '1 millisecond'
                         ELSE {{statement_now}}
                     END AS due) AS t
ON CONFLICT DO NOTHING
RETURNING id
