-- Records a batch of outcomes other than plain completion: retry, snooze, discard, cancel, failure.
-- Same (id, attempt, state = 'running') guard and lock order as complete_jobs.sql; the outcomes
-- come as one JSON array of rows, read by one JSON_TABLE (see complete_jobs.sql). delay_ms moves run_at forward on the database clock;
-- extra_attempts lets a snooze or hand-back keep the attempts it did not really spend; error (a
-- JSON object as text) is appended to the history with the database time as ISO-8601 UTC. output (JSON
-- text) is what a completing handler recorded (null: keep none).
-- No assignment reads a column another one changes, so their order does not matter.
-- A job an operator asked to stop (stop_requested, V015) takes only completion or the requested
-- state: the worker turns any other outcome into the requested state, so another one here comes
-- from a worker that had not heard of the request yet; the row stays running and the rescue ends
-- it as requested when its lease expires (the worker stops extending it once its outcome is sent).
-- Index: primary key.
-- Parameters: outcomes (JSON array of [id, attempt, new state, delay ms or null, extra attempts,
--             error or null, output or null], ascending ids).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id       BIGINT      PATH '$[0]',
                                     attempt  INT         PATH '$[1]',
                                     state    VARCHAR(16) PATH '$[2]',
                                     delay_ms BIGINT      PATH '$[3]',
                                     extra    INT         PATH '$[4]',
                                     error    LONGTEXT    PATH '$[5]',
                                     output   LONGTEXT    PATH '$[6]')) AS o
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = o.id
SET j.state        = o.state,
    j.run_at       = CASE WHEN o.delay_ms IS NULL THEN j.run_at
                          ELSE {{statement_now}} + INTERVAL (o.delay_ms * 1000) MICROSECOND END,
    j.finished_at  = CASE WHEN o.state IN ('completed', 'discarded', 'cancelled') THEN {{statement_now}} END,
    j.max_attempts = j.max_attempts + o.extra,
    j.lease_until  = NULL,
    j.errors       = CASE WHEN o.error IS NULL THEN j.errors
                          ELSE JSON_ARRAY_APPEND(j.errors, '$', JSON_MERGE_PATCH(o.error,
                               JSON_OBJECT('at', DATE_FORMAT({{statement_now}}, '%Y-%m-%dT%H:%i:%s.%fZ')))) END,
    j.output       = CASE WHEN o.output IS NULL THEN j.output ELSE o.output END
WHERE j.state = 'running'
  AND j.attempt = o.attempt
  AND (j.stop_requested IS NULL OR o.state IN ('completed', j.stop_requested))
