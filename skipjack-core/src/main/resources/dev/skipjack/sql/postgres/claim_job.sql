-- Claims one given job, if it is available, for a run on the caller's thread (Skipjack.runJob;
-- the skipjack-testing helpers): the same marking as claim.sql and claim_transactional.sql, for
-- one id instead of the head of a queue. In auto-commit for a lease-mode kind; inside the job's
-- transaction for a transactional or two-phase kind, like claim_transactional.sql.
-- SKIP LOCKED: a job another worker is claiming right now is left to it (no row comes back).
-- stop_requested is reset: an operator's request to stop a running job belongs to the execution
-- it was made for, never to the next one.
-- Index: primary key.
-- Parameters: job id, worker id, lease in milliseconds.
-- attempted_at and lease_until: the instant the row is taken (evaluation_now), not the statement's
-- start, which can precede a lock wait and so the end of the job that freed this one's slot.
WITH next AS (
    SELECT id
    FROM {{jobs}}
    WHERE id = ?
      AND state = 'available'
    FOR UPDATE SKIP LOCKED
)
UPDATE {{jobs}} AS j
SET state        = 'running',
    attempt      = j.attempt + 1,
    attempted_at = {{evaluation_now}},
    claimed_by   = ?,
    lease_until  = {{evaluation_now}} + ? * interval '1 millisecond',
    stop_requested = NULL
FROM next
WHERE j.id = next.id
RETURNING j.id, j.queue, j.kind, j.args::text, j.priority, j.attempt, j.max_attempts,
          (extract(epoch FROM j.created_at) * 1000000)::bigint,
          (extract(epoch FROM j.run_at) * 1000000)::bigint,
          j.workflow_id, j.workflow_step, j.concurrency_key, j.trace_context
