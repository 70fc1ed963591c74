-- Records the outcome of a transactional execution whose transaction was lost: the connection
-- broke, the commit failed, or the handler's transaction could not be used any more. The rollback
-- left the job exactly as before the claim (available, previous attempt number), so without this
-- the attempt would not count and a job that always breaks its transaction would be retried for
-- free forever.
-- Guard: only while nobody has claimed the job since (still available, attempt still one less).
-- Index: primary key.
-- Parameters: ?1 id, ?2 attempt of the lost execution, ?3 new state, ?4 delay (ms or null),
--             ?5 worker id, ?6 error (JSON text).
UPDATE {{jobs}}
SET attempt      = ?2,
    state        = ?3,
    run_at       = CASE WHEN ?4 IS NULL THEN run_at ELSE {{statement_now}} + ?4 * 1000 END,
    finished_at  = CASE WHEN ?3 IN ('completed', 'discarded', 'cancelled') THEN {{statement_now}} END,
    attempted_at = {{statement_now}},
    claimed_by   = ?5,
    errors       = json_insert(errors, '$[#]', json_set(json(?6),
                       '$.at', strftime('%Y-%m-%dT%H:%M:%fZ', {{statement_now}} / 1000000.0, 'unixepoch')))
WHERE id = ?1
  AND attempt = ?2 - 1
  AND state = 'available'
