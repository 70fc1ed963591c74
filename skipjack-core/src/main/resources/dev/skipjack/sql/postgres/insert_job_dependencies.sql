-- Workflows (F-14): the edges of a workflow, inserted with its jobs in one transaction.
-- Parameters: child ids, parent ids (paired by position).
INSERT INTO {{job_dependencies}} (child_id, parent_id)
SELECT child_id, parent_id
FROM unnest(?::bigint[], ?::bigint[]) AS e(child_id, parent_id)
