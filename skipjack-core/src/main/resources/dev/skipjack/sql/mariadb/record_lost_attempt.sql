-- Records the outcome of a transactional execution whose transaction was lost: the connection
-- broke, the commit failed, or the handler's transaction could not be used any more. The rollback
-- left the job exactly as before the claim (available, previous attempt number), so without this
-- the attempt would not count and a job that always breaks its transaction would be retried for
-- free forever.
-- Guard: only while nobody has claimed the job since (still available, attempt still one less).
-- Index: primary key.
-- Parameters: id, attempt of the lost execution, new state, delay (ms or null), worker id, error (JSON text).
UPDATE {{jobs}} AS j
JOIN (SELECT ? AS id, ? AS attempt, ? AS state, ? AS delay_ms, ? AS worker, ? AS error) AS o ON j.id = o.id
SET j.attempt      = o.attempt,
    j.state        = o.state,
    j.run_at       = CASE WHEN o.delay_ms IS NULL THEN j.run_at
                          ELSE {{statement_now}} + INTERVAL (o.delay_ms * 1000) MICROSECOND END,
    j.finished_at  = CASE WHEN o.state IN ('completed', 'discarded', 'cancelled') THEN {{statement_now}} END,
    j.attempted_at = {{statement_now}},
    j.claimed_by   = o.worker,
    j.errors       = JSON_ARRAY_APPEND(j.errors, '$', JSON_MERGE_PATCH(o.error,
                         JSON_OBJECT('at', DATE_FORMAT({{statement_now}}, '%Y-%m-%dT%H:%i:%s.%fZ'))))
WHERE j.attempt = o.attempt - 1
  AND j.state = 'available'
