-- Stores the context the client's JobInterceptors gave one enqueue call (a JSON object of text,
-- e.g. a W3C traceparent) with the jobs it inserted, in the same transaction as their insert, so a
-- worker never claims one of them without it. Only clients with interceptors run this: one
-- statement per enqueue call, not per job.
-- Index: primary key (the ids come from a JSON array; the subquery does not read the jobs table).
-- Parameters: the context (JSON text), the jobs' ids (JSON array).
UPDATE {{jobs}}
SET trace_context = ?
WHERE id IN (SELECT c.id FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c)
