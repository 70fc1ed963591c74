-- Stores the context the client's JobInterceptors gave one enqueue call (a JSON object of text,
-- e.g. a W3C traceparent) with the jobs it inserted, in the same transaction as their insert, so a
-- worker never claims one of them without it. Only clients with interceptors run this: one
-- statement per enqueue call, not per job.
-- Index: primary key.
-- Parameters: the context (JSON text), the jobs' ids.
UPDATE {{jobs}}
SET trace_context = ?
WHERE id = ANY (?::bigint[])
