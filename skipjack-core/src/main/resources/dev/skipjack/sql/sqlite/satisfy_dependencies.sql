-- Workflows (F-14), in the completion transaction of the given parents: marks each parent's edges
-- satisfied and returns every edge this statement changed, (parent, child), one row per edge. Edges
-- already satisfied are left alone and not returned: a completion recorded twice decrements
-- nobody twice. (The caller runs this only for parents whose own running -> completed update, or
-- failure under the CONTINUE policy, happened in this transaction.)
-- Index: job_dependencies_parent_idx (parent_id).
-- Parameters: parent ids (JSON array).
UPDATE {{job_dependencies}}
SET satisfied = 1
WHERE parent_id IN (SELECT value FROM json_each(?))
  AND satisfied = 0
RETURNING parent_id, child_id
