-- The ids of jobs matching an operator's filter, newest first, one batch of a bulk action.
-- Same filters and parameters as list_jobs.sql.
-- Index: primary key, walked backwards from the cursor.
SELECT id
FROM {{jobs}}
WHERE (? IS NULL OR JSON_CONTAINS(?, JSON_QUOTE(queue)))
  AND (? IS NULL OR JSON_CONTAINS(?, JSON_QUOTE(kind)))
  AND (? IS NULL OR JSON_CONTAINS(?, JSON_QUOTE(state)))
  AND (? IS NULL OR created_at >= ?)
  AND (? IS NULL OR created_at < ?)
  AND (? IS NULL OR JSON_CONTAINS(args, ?))
  AND (? IS NULL OR JSON_CONTAINS(tags, JSON_QUOTE(?)))
  AND (? IS NULL OR id < ?)
ORDER BY id DESC
LIMIT ?
