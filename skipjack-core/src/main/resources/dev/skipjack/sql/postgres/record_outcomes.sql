-- Records a batch of outcomes other than plain completion: retry, snooze, discard, cancel, failure.
-- Same (id, attempt, state = 'running') guard as complete_jobs.sql.
-- delay_ms moves run_at forward on the database clock; extra_attempts lets a snooze or hand-back
-- keep the attempts it did not really spend; error (JSON text) is appended to the history with
-- the database time.
-- Times are statement_timestamp(), not now(): in transactional mode this statement runs in the
-- claiming transaction, whose now() is the claim time, not the time the handler finished.
-- Rows are locked in id order before the update (see complete_jobs.sql).
-- Index: primary key.
-- Parameters: ids, attempts, new states, delays (ms or null), extra attempts, errors (or null).
WITH o AS (
    SELECT *
    FROM unnest(?::bigint[], ?::int[], ?::text[], ?::bigint[], ?::int[], ?::text[])
         AS u(id, attempt, state, delay_ms, extra_attempts, error)
),
locked AS (
    SELECT j.id
    FROM {{jobs}} AS j
    JOIN o ON j.id = o.id AND j.attempt = o.attempt
    WHERE j.state = 'running'
    ORDER BY j.id
    FOR UPDATE OF j
)
UPDATE {{jobs}} AS j
SET state        = o.state,
    run_at       = CASE WHEN o.delay_ms IS NULL THEN j.run_at
                        ELSE statement_timestamp() + o.delay_ms * interval '1 millisecond' END,
    finished_at  = CASE WHEN o.state IN ('completed', 'discarded', 'cancelled') THEN statement_timestamp() END,
    max_attempts = j.max_attempts + o.extra_attempts,
    lease_until  = NULL,
    errors       = CASE WHEN o.error IS NULL THEN j.errors
                        ELSE j.errors || jsonb_build_array(o.error::jsonb || jsonb_build_object('at', statement_timestamp())) END
FROM locked
JOIN o ON o.id = locked.id
WHERE j.id = locked.id
  AND j.state = 'running'
