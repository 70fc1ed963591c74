-- hosts: executions the cut host began while its link was down (more than a second after the
-- cut, before the link came back), as its audit rows say once they arrive. Must be 0: a host
-- that cannot reach the database starts no work, and a claim answered late is not run.
-- Index: none; a scan of the audit once after the run.
-- Parameters: the cut worker, the cut time, the time the link came back.
SELECT count(*)
FROM {{audit_executions}}
WHERE worker = ?
  AND started_at > ?::timestamptz + interval '1 second'
  AND started_at < ?::timestamptz
