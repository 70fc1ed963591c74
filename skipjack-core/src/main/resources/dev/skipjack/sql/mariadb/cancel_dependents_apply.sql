-- Workflows (F-14), step 2 of 2: cancels the dependents cancel_dependents.sql locked and records
-- why. No assignment reads a column another one changes.
-- Index: primary key, driven by the id list.
-- Parameters: ids (JSON array), the message to record.
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state       = 'cancelled',
    j.finished_at = {{statement_now}},
    j.errors      = JSON_ARRAY_APPEND(j.errors, '$', JSON_OBJECT(
                        'at', DATE_FORMAT({{statement_now}}, '%Y-%m-%dT%H:%i:%s.%fZ'),
                        'attempt', j.attempt,
                        'class', 'DependencyFailed',
                        'message', ?))
WHERE j.state = 'waiting'
