-- Rate limits (F-12), after lock_concurrency_key.sql in the same transaction: the jobs of the key
-- that count against its rate: admitted and not started yet (available), or started within the
-- period (attempted_at, set by the claim). A job counts from its admission until a period after
-- its start, so of the jobs starting within any period, each was counted when the last of them
-- was admitted, and at most the limit start per period. A failed attempt waits to be admitted
-- again (OutcomeTranslator), so retries count too.
-- Index: jobs_concurrency_started_idx (concurrency_key, attempted_at), jobs_concurrency_idx.
-- Parameters: key, the period in milliseconds.
SELECT count(*)
FROM {{jobs}}
WHERE concurrency_key = ?
  AND (state = 'available' OR attempted_at > {{statement_now}} - ? * interval '1 millisecond')
