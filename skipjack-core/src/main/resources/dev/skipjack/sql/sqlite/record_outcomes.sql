-- Records a batch of outcomes other than plain completion: retry, snooze, discard, cancel, failure.
-- Same (id, attempt, state = 'running') guard as complete_jobs.sql; the seven lists are JSON arrays
-- paired by position (json_each's key; the six after the ids MATERIALIZED, see complete_jobs.sql). delay_ms moves run_at forward on the database clock;
-- extra_attempts lets a snooze or hand-back keep the attempts it did not really spend; error (a
-- JSON object as text) is appended to the history with the database time as ISO-8601 UTC. output
-- (JSON text) is what a completing handler recorded (null: keep none).
-- A job an operator asked to stop (stop_requested, V015) takes only completion or the requested
-- state: the worker turns any other outcome into the requested state, so another one here comes
-- from a worker that had not heard of the request yet; the row stays running and the rescue ends
-- it as requested when its lease expires (the worker stops extending it once its outcome is sent).
-- Index: primary key ('+state': the guard is checked on the row, never by a scan of the partial
-- lease index, which the planner would pick when few jobs run; SqlitePlanTest).
-- Parameters: ?1 ids, ?2 attempts, ?3 new states, ?4 delays (ms or null), ?5 extra attempts, ?6 errors (or null),
--             ?7 outputs (or null).
WITH o_att AS MATERIALIZED (SELECT key, value FROM json_each(?2)),
     o_state AS MATERIALIZED (SELECT key, value FROM json_each(?3)),
     o_delay AS MATERIALIZED (SELECT key, value FROM json_each(?4)),
     o_extra AS MATERIALIZED (SELECT key, value FROM json_each(?5)),
     o_err AS MATERIALIZED (SELECT key, value FROM json_each(?6)),
     o_out AS MATERIALIZED (SELECT key, value FROM json_each(?7))
UPDATE {{jobs}}
SET state        = o.new_state,
    run_at       = CASE WHEN o.delay_ms IS NULL THEN run_at ELSE {{statement_now}} + o.delay_ms * 1000 END,
    finished_at  = CASE WHEN o.new_state IN ('completed', 'discarded', 'cancelled') THEN {{statement_now}} END,
    max_attempts = max_attempts + o.extra,
    lease_until  = NULL,
    errors       = CASE WHEN o.error IS NULL THEN errors
                        ELSE json_insert(errors, '$[#]', json_set(json(o.error),
                             '$.at', strftime('%Y-%m-%dT%H:%M:%fZ', {{statement_now}} / 1000000.0, 'unixepoch'))) END,
    output       = CASE WHEN o.out_json IS NULL THEN output ELSE json(o.out_json) END
FROM (SELECT o_id.value AS out_id, o_att.value AS out_attempt, o_state.value AS new_state,
             o_delay.value AS delay_ms, o_extra.value AS extra, o_err.value AS error, o_out.value AS out_json
      FROM json_each(?1) AS o_id
      JOIN o_att ON o_att.key = o_id.key
      JOIN o_state ON o_state.key = o_id.key
      JOIN o_delay ON o_delay.key = o_id.key
      JOIN o_extra ON o_extra.key = o_id.key
      JOIN o_err ON o_err.key = o_id.key
      JOIN o_out ON o_out.key = o_id.key) AS o
WHERE id = o.out_id
  AND +state = 'running'
  AND attempt = o.out_attempt
  AND (stop_requested IS NULL OR o.new_state IN ('completed', stop_requested))
