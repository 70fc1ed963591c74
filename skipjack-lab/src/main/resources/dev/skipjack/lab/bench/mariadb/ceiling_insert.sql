-- Raw SQL ceiling on MariaDB/MySQL, enqueue: a plain multi-row insert of one kind with a tiny
-- payload, one JSON array element per job (JSON_TABLE, as Skipjack's bulk enqueue reads its
-- batch). No validation: the least work that makes a claimable job (state and run_at default).
-- Index: jobs_claim_idx is maintained for every row.
-- Parameters: queue, kind, args (JSON array of JSON texts).
INSERT INTO {{jobs}} (queue, kind, args)
SELECT ?, ?, a.args
FROM JSON_TABLE(?, '$[*]' COLUMNS (args LONGTEXT PATH '$')) AS a
