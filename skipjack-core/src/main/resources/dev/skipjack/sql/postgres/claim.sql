-- Claims up to N available jobs of one queue in one statement (F-1).
-- The CTE locks the rows it picks with SKIP LOCKED, so concurrent claimers never wait on each
-- other and never pick the same row; the UPDATE marks them running in the same statement, so no
-- application code runs between "found" and "owned".
-- Times come back as epoch microseconds: the driver's timestamp parsing (a Calendar per value)
-- was a tenth of a busy worker's CPU.
-- workflow_id and workflow_step (null outside workflows) tell the execution to read its parents'
-- outputs and the completion to advance the workflow (F-14); concurrency_key (F-12, F-13) tells the
-- completion to admit the key's next job; trace_context (V014) is what the enqueuing client's
-- JobInterceptors stored, for the handler's run. Plain jobs pay four null columns.
-- stop_requested is reset: an operator's request to stop a running job belongs to the execution
-- it was made for, never to the next one.
-- Index: jobs_claim_idx (queue, priority, run_at, id) WHERE state = 'available'.
-- Parameters: queue, kinds this claimer must leave alone (transactional kinds), limit,
--             worker id, lease in milliseconds.
-- attempted_at and lease_until: the instant the row is taken (evaluation_now), not the statement's
-- start, which can precede a lock wait and so the end of the job that freed this one's slot.
WITH next AS (
    SELECT id
    FROM {{jobs}}
    WHERE state = 'available'
      AND queue = ?
      AND kind <> ALL (?::text[])
    ORDER BY priority, run_at, id
    LIMIT ?
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
