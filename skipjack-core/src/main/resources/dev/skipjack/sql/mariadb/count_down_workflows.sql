-- Workflows (F-14), in the transaction that ended some of their jobs: takes the jobs that became
-- terminal off each workflow's remaining count. Last in its transaction, so the workflow row is
-- the last lock taken (every such transaction takes it last: no lock cycle through it).
-- Index: primary key, driven by the id list.
-- The pairs come as one JSON array of rows read by one JSON_TABLE (Dialect.setRows; two arrays
-- joined on FOR ORDINALITY are a nested loop, quadratic in the batch: see complete_jobs.sql).
-- Parameters: [workflow id, jobs ended] rows (JSON array, ascending ids), the workflow ids (unused
--             here beyond a null check).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', n INT PATH '$[1]')) AS c
STRAIGHT_JOIN {{workflows}} AS w FORCE INDEX (PRIMARY) ON w.id = c.id
SET w.remaining = w.remaining - c.n
WHERE ? IS NOT NULL
