-- Raw SQL ceiling on SQLite, enqueue: a plain multi-row insert of one kind with a tiny payload,
-- one JSON array element per job (json_each, as Skipjack's bulk enqueue reads its batch). No
-- validation: the least work that makes a claimable job (state and run_at default).
-- Index: jobs_claim_idx (partial, state = 'available') is maintained for every row.
-- Parameters: queue, kind, args (JSON array of JSON texts).
INSERT INTO {{jobs}} (queue, kind, args)
SELECT ?, ?, a.value
FROM json_each(?) AS a
