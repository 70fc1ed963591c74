-- Inserts one job, with what the multi-row inserts do not carry: a unique key (F-10), tags,
-- metadata, and a concurrency key (F-12, F-13), with which it is inserted 'waiting' for a slot
-- (admitted by ConcurrencyAdmission right after the commit, or by the admission pass). For a unique job, a job already holding the key makes it fail with error 1062 and
-- nothing else: the dialect reads that as "duplicate" (on this family a failed statement is rolled
-- back alone, the caller's transaction goes on). Not INSERT IGNORE, which would also pass over
-- CHECK and truncation errors; not ON DUPLICATE KEY UPDATE, whose row count cannot tell an insert
-- from a no-op update under Connector/J's CLIENT_FOUND_ROWS. The id is the generated key.
-- Due time as insert_job.sql.
-- Index: jobs_unique_idx on unique_slot (the conflict), primary key.
-- Parameters: queue, kind, args (JSON text), priority, max attempts, unique key (or null), whether
--             a completed job keeps the key, run_at (epoch milliseconds, or null), delay
--             (milliseconds, or null), tags (JSON array, or null), metadata (JSON object, or null),
--             concurrency key, its limit, its order (all three null, or none), and a rate limit's
--             period in milliseconds (null unless the order is 'rate').
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, unique_key, unique_includes_completed, run_at, state,
                      tags, metadata, concurrency_key, concurrency_max, concurrency_order, concurrency_period_ms)
SELECT ?, ?, ?, ?, ?, ?, ?, t.due,
       CASE WHEN t.concurrency_key IS NOT NULL THEN 'waiting'
            WHEN t.due > {{statement_now}} THEN 'scheduled' ELSE 'available' END,
       COALESCE(t.tags, '[]'), COALESCE(t.metadata, '{}'), t.concurrency_key, t.concurrency_max, t.concurrency_order,
       t.concurrency_period_ms
FROM (
    SELECT CASE
               WHEN p.run_at_ms IS NOT NULL
                   THEN CAST('1970-01-01 00:00:00' AS DATETIME(6)) + INTERVAL (p.run_at_ms * 1000) MICROSECOND
               WHEN p.delay_ms IS NOT NULL THEN {{statement_now}} + INTERVAL (p.delay_ms * 1000) MICROSECOND
               ELSE {{statement_now}}
           END AS due,
           p.tags, p.metadata, p.concurrency_key, p.concurrency_max, p.concurrency_order, p.concurrency_period_ms
    FROM (SELECT ? AS run_at_ms, ? AS delay_ms, ? AS tags, ? AS metadata,
                 ? AS concurrency_key, ? AS concurrency_max, ? AS concurrency_order,
                 ? AS concurrency_period_ms) AS p
) AS t
