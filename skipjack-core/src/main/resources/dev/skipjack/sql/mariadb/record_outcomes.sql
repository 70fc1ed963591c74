-- Records a batch of outcomes other than plain completion: retry, snooze, discard, cancel, failure.
-- Same (id, attempt, state = 'running') guard and lock order as complete_jobs.sql; the six lists
-- are JSON arrays paired by position. delay_ms moves run_at forward on the database clock;
-- extra_attempts lets a snooze or hand-back keep the attempts it did not really spend; error (a
-- JSON object as text) is appended to the history with the database time as ISO-8601 UTC.
-- No assignment reads a column another one changes, so their order does not matter.
-- Index: primary key.
-- Parameters: ids (ascending), attempts, new states, delays (ms or null), extra attempts, errors (or null).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, id BIGINT PATH '$')) AS o_id
JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, attempt INT PATH '$')) AS o_att ON o_att.ord = o_id.ord
JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, state VARCHAR(16) PATH '$')) AS o_state ON o_state.ord = o_id.ord
JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, delay_ms BIGINT PATH '$')) AS o_delay ON o_delay.ord = o_id.ord
JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, extra INT PATH '$')) AS o_extra ON o_extra.ord = o_id.ord
JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, error LONGTEXT PATH '$')) AS o_err ON o_err.ord = o_id.ord
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = o_id.id
SET j.state        = o_state.state,
    j.run_at       = CASE WHEN o_delay.delay_ms IS NULL THEN j.run_at
                          ELSE {{statement_now}} + INTERVAL (o_delay.delay_ms * 1000) MICROSECOND END,
    j.finished_at  = CASE WHEN o_state.state IN ('completed', 'discarded', 'cancelled') THEN {{statement_now}} END,
    j.max_attempts = j.max_attempts + o_extra.extra,
    j.lease_until  = NULL,
    j.errors       = CASE WHEN o_err.error IS NULL THEN j.errors
                          ELSE JSON_ARRAY_APPEND(j.errors, '$', JSON_MERGE_PATCH(o_err.error,
                               JSON_OBJECT('at', DATE_FORMAT({{statement_now}}, '%Y-%m-%dT%H:%i:%s.%fZ')))) END
WHERE j.state = 'running'
  AND j.attempt = o_att.attempt
