-- Records a batch of outcomes other than plain completion: retry, snooze, discard, cancel, failure.
-- Same (id, attempt, state = 'running') guard as complete_jobs.sql; the six lists are JSON arrays
-- paired by position (json_each's key). delay_ms moves run_at forward on the database clock;
-- extra_attempts lets a snooze or hand-back keep the attempts it did not really spend; error (a
-- JSON object as text) is appended to the history with the database time as ISO-8601 UTC.
-- Index: primary key.
-- Parameters: ids, attempts, new states, delays (ms or null), extra attempts, errors (or null).
UPDATE {{jobs}}
SET state        = o.new_state,
    run_at       = CASE WHEN o.delay_ms IS NULL THEN run_at ELSE {{statement_now}} + o.delay_ms * 1000 END,
    finished_at  = CASE WHEN o.new_state IN ('completed', 'discarded', 'cancelled') THEN {{statement_now}} END,
    max_attempts = max_attempts + o.extra,
    lease_until  = NULL,
    errors       = CASE WHEN o.error IS NULL THEN errors
                        ELSE json_insert(errors, '$[#]', json_set(json(o.error),
                             '$.at', strftime('%Y-%m-%dT%H:%M:%fZ', {{statement_now}} / 1000000.0, 'unixepoch'))) END
FROM (SELECT o_id.value AS out_id, o_att.value AS out_attempt, o_state.value AS new_state,
             o_delay.value AS delay_ms, o_extra.value AS extra, o_err.value AS error
      FROM json_each(?) AS o_id
      JOIN json_each(?) AS o_att ON o_att.key = o_id.key
      JOIN json_each(?) AS o_state ON o_state.key = o_id.key
      JOIN json_each(?) AS o_delay ON o_delay.key = o_id.key
      JOIN json_each(?) AS o_extra ON o_extra.key = o_id.key
      JOIN json_each(?) AS o_err ON o_err.key = o_id.key) AS o
WHERE id = o.out_id
  AND state = 'running'
  AND attempt = o.out_attempt
