-- Raw SQL ceiling on PostgreSQL, enqueue: a plain multi-row insert of one kind with a tiny payload, one array
-- element per job. No validation, no notification: the least work that makes a claimable job.
-- Index: jobs_claim_idx is maintained for every row (state defaults to 'available').
-- Parameters: queue, kind, args (JSON text array).
INSERT INTO {{jobs}} (queue, kind, args)
SELECT ?, ?, a::jsonb FROM unnest(?::text[]) AS a
