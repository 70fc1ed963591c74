-- Workflows (F-14): the edges of a workflow, inserted with its jobs in one transaction.
-- Parameters: ?1 child ids, ?2 parent ids (JSON arrays paired by position; the parents
--             MATERIALIZED, see insert_jobs.sql).
INSERT INTO {{job_dependencies}} (child_id, parent_id)
WITH p AS MATERIALIZED (SELECT key, value FROM json_each(?2))
SELECT c.value, p.value
FROM json_each(?1) AS c
JOIN p ON p.key = c.key
