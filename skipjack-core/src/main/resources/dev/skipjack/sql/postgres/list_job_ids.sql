-- The ids of jobs matching an operator's filter, newest first, one batch of a bulk action
-- (retry, cancel, discard, delete, snooze of a filtered set). Same filters as list_jobs.sql.
-- Index: primary key, walked backwards from the cursor.
-- Parameters: as list_jobs.sql.
SELECT id
FROM {{jobs}}
WHERE (?::text[] IS NULL OR queue = ANY (?::text[]))
  AND (?::text[] IS NULL OR kind = ANY (?::text[]))
  AND (?::text[] IS NULL OR state = ANY (?::text[]))
  AND (?::timestamptz IS NULL OR created_at >= ?::timestamptz)
  AND (?::timestamptz IS NULL OR created_at < ?::timestamptz)
  AND (?::jsonb IS NULL OR args @> ?::jsonb)
  AND (?::text IS NULL OR ?::text = ANY (tags))
  AND (?::bigint IS NULL OR id < ?::bigint)
ORDER BY id DESC
LIMIT ?
