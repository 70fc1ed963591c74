-- Records a batch of outcomes other than plain completion: retry, snooze, discard, cancel, failure.
-- Same (id, attempt, state = 'running') guard as complete_jobs.sql.
-- delay_ms moves run_at forward on the database clock; extra_attempts lets a snooze or hand-back
-- keep the attempts it did not really spend; error (JSON text) is appended to the history with
-- the database time. output (JSON text) is what a completing handler recorded (null: keep none).
-- Times are statement_timestamp(), not now(): in transactional mode this statement runs in the
-- claiming transaction, whose now() is the claim time, not the time the handler finished.
-- A job an operator asked to stop (stop_requested, V015) takes only completion or the requested
-- state: the worker turns any other outcome into the requested state, so another one here comes
-- from a worker that had not heard of the request yet; the row stays running and the rescue ends
-- it as requested when its lease expires (the worker stops extending it once its outcome is sent).
-- Plan shape and lock order as complete_jobs.sql: one primary-key lookup per given id (ids sorted
-- by the caller), guards checked on the locked row.
-- Index: primary key.
-- Parameters: ids (ascending), attempts, new states, delays (ms or null), extra attempts, errors (or null),
--             outputs (or null).
WITH locked AS (
    SELECT o.*
    FROM unnest(?::bigint[], ?::int[], ?::text[], ?::bigint[], ?::int[], ?::text[], ?::text[])
         AS o(id, attempt, state, delay_ms, extra_attempts, error, output)
    CROSS JOIN LATERAL (
        SELECT attempt, state, stop_requested FROM {{jobs}} WHERE id = o.id OFFSET 0 FOR UPDATE
    ) AS j
    WHERE j.attempt = o.attempt
      AND j.state = 'running'
      AND (j.stop_requested IS NULL OR o.state IN ('completed', j.stop_requested))
)
UPDATE {{jobs}} AS j
SET state        = locked.state,
    run_at       = CASE WHEN locked.delay_ms IS NULL THEN j.run_at
                        ELSE {{statement_now}} + locked.delay_ms * interval '1 millisecond' END,
    finished_at  = CASE WHEN locked.state IN ('completed', 'discarded', 'cancelled') THEN {{statement_now}} END,
    max_attempts = j.max_attempts + locked.extra_attempts,
    lease_until  = NULL,
    errors       = CASE WHEN locked.error IS NULL THEN j.errors
                        ELSE j.errors || jsonb_build_array(locked.error::jsonb || jsonb_build_object('at', {{statement_now}})) END,
    output       = CASE WHEN locked.output IS NULL THEN j.output ELSE locked.output::jsonb END
FROM locked
WHERE j.id = locked.id
