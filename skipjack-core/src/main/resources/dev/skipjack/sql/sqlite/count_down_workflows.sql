-- Workflows (F-14), in the transaction that ended some of their jobs: takes the jobs that became
-- terminal off each workflow's remaining count. The two lists are JSON arrays paired by position.
-- Index: primary key.
-- Parameters: ?1 workflow ids, ?2 jobs ended per workflow, ?3 the workflow ids again (unused here
--             beyond a null check).
WITH c_n AS MATERIALIZED (SELECT key, value FROM json_each(?2))
UPDATE {{workflows}}
SET remaining = remaining - c.n
FROM (SELECT c_id.value AS workflow_id, c_n.value AS n
      FROM json_each(?1) AS c_id
      JOIN c_n ON c_n.key = c_id.key) AS c
WHERE id = c.workflow_id
  AND ?3 IS NOT NULL
