-- Workflows (F-14): the edges of a workflow, inserted with its jobs in one transaction.
-- The edges come as one JSON array of rows read by one JSON_TABLE (Dialect.setRows; two arrays
-- joined on FOR ORDINALITY are a nested loop, quadratic in the number of edges).
-- Parameters: [child id, parent id] rows (JSON array).
INSERT INTO {{job_dependencies}} (child_id, parent_id)
SELECT e.child_id, e.parent_id
FROM JSON_TABLE(?, '$[*]' COLUMNS (child_id BIGINT PATH '$[0]', parent_id BIGINT PATH '$[1]')) AS e
