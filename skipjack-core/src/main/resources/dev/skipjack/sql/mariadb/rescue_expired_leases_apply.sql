-- Rescue, step 2 of 2: the attempt counts and "lease expired" is recorded; out of attempts, the
-- job is discarded. The guard is checked again on the locked row. No assignment reads a column
-- another one changes, so their order does not matter.
-- A job of a rate-limited key (F-12) that will run again waits to be admitted again ('waiting'):
-- its next start must fit the rate too.
-- A job an operator asked to stop (stop_requested, V015) whose worker is gone ends as asked,
-- without another attempt.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state       = CASE WHEN j.stop_requested IN ('cancelled', 'discarded') THEN j.stop_requested
                        WHEN j.attempt >= j.max_attempts THEN 'discarded'
                        WHEN j.concurrency_order = 'rate' THEN 'waiting' ELSE 'available' END,
    j.finished_at = CASE WHEN j.stop_requested IN ('cancelled', 'discarded') OR j.attempt >= j.max_attempts
                        THEN {{now}} END,
    j.lease_until = NULL,
    j.errors      = JSON_ARRAY_APPEND(j.errors, '$', JSON_OBJECT(
                        'at', DATE_FORMAT({{now}}, '%Y-%m-%dT%H:%i:%s.%fZ'),
                        'attempt', j.attempt,
                        'class', 'LeaseExpired',
                        'message', CONCAT('lease expired: worker ', COALESCE(j.claimed_by, '?'), ' stopped extending it'),
                        'worker', j.claimed_by))
WHERE j.state = 'running'
  AND j.lease_until < {{now}}
