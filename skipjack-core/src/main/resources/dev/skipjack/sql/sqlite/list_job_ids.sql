-- The ids of jobs matching an operator's filter, newest first, one batch of a bulk action.
-- Same filters and parameters as list_jobs.sql.
-- Index: primary key, walked backwards from the cursor.
SELECT id
FROM {{jobs}}
WHERE (? IS NULL OR queue IN (SELECT value FROM json_each(?)))
  AND (? IS NULL OR kind IN (SELECT value FROM json_each(?)))
  AND (? IS NULL OR state IN (SELECT value FROM json_each(?)))
  AND (? IS NULL OR created_at >= ?)
  AND (? IS NULL OR created_at < ?)
  AND (? IS NULL OR NOT EXISTS (
          SELECT 1 FROM json_each(?) AS f
          WHERE f.value IS NOT (SELECT a.value FROM json_each(args) AS a WHERE a.key = f.key)))
  AND (? IS NULL OR EXISTS (SELECT 1 FROM json_each(tags) AS t WHERE t.value = ?))
  AND (? IS NULL OR id < ?)
ORDER BY id DESC
LIMIT ?
