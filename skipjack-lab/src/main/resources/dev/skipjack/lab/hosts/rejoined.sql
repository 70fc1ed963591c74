-- hosts: when the cut host completed its first job claimed after its link came back (null:
-- not yet), on the database's clock.
-- Index: none; a scan of the run's table, polled every 500 ms until it answers.
-- Parameters: the cut worker, the time the link came back.
SELECT min(finished_at)
FROM {{jobs}}
WHERE claimed_by = ?
  AND state = 'completed'
  AND attempted_at > ?::timestamptz
