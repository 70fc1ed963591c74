-- depth: adds rows scheduled for later, one second apart from now + horizon on, so none becomes due
-- during the benchmark. Generated server-side.
-- Index: maintains jobs_due_idx (run_at) WHERE state IN ('scheduled', 'retryable'); not jobs_claim_idx.
-- Parameters: queue, kind, horizon in seconds, first n, end n (exclusive).
INSERT INTO {{jobs}} (queue, kind, args, state, run_at)
SELECT ?, ?, jsonb_build_object('n', g), 'scheduled', now() + (? + g) * interval '1 second'
FROM generate_series(?::bigint, ? - 1) AS g
