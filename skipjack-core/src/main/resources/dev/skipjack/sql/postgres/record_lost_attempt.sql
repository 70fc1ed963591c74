-- Records the outcome of a transactional execution whose transaction was lost: the connection
-- broke, the commit failed, or the handler's transaction could not be used any more. The rollback
-- left the job exactly as before the claim (available, previous attempt number), so without this
-- the attempt would not count and a job that always breaks its transaction would be retried for
-- free forever.
-- Guard: only while nobody has claimed the job since (still available, attempt still one less);
-- if the lost transaction did commit after all, the attempt number no longer matches.
-- Index: primary key.
-- Parameters: id, attempt of the lost execution, new state, delay (ms or null), worker id, error (JSON text).
UPDATE {{jobs}} AS j
SET attempt      = o.attempt,
    state        = o.state,
    run_at       = CASE WHEN o.delay_ms IS NULL THEN j.run_at
                        ELSE {{statement_now}} + o.delay_ms * interval '1 millisecond' END,
    finished_at  = CASE WHEN o.state IN ('completed', 'discarded', 'cancelled') THEN {{statement_now}} END,
    attempted_at = {{statement_now}},
    claimed_by   = o.worker,
    errors       = j.errors || jsonb_build_array(o.error::jsonb || jsonb_build_object('at', {{statement_now}}))
FROM (VALUES (?::bigint, ?::int, ?::text, ?::bigint, ?::text, ?::text)) AS o(id, attempt, state, delay_ms, worker, error)
WHERE j.id = o.id
  AND j.attempt = o.attempt - 1
  AND j.state = 'available'
