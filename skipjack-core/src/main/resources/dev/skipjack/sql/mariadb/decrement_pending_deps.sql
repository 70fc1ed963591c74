-- Workflows (F-14), after satisfy_dependencies in the same transaction: takes each child's newly
-- satisfied edges off its pending_deps. A decrement, never a count of satisfied parents: two
-- parents completing at once both decrement the one child row; InnoDB's row lock orders them and
-- the second reads the row as the first committed it (an UPDATE reads the latest version).
-- Counting parents instead (a read) lets each transaction see the other's parent unfinished, and
-- the child is stranded (timgit/pg-boss#777). Only pending_deps is assigned, from itself.
-- Index: primary key, driven by the id list; children in ascending id order.
-- The pairs come as one JSON array of rows read by one JSON_TABLE (Dialect.setRows; two arrays
-- joined on FOR ORDINALITY are a nested loop, quadratic in the batch: see complete_jobs.sql).
-- Parameters: [child id, satisfied edges] rows (JSON array, ascending ids), the child ids (bound for
--             the PostgreSQL statement's plan; unused here beyond a null check).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', n INT PATH '$[1]')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.pending_deps = j.pending_deps - c.n
WHERE ? IS NOT NULL
