-- Workflows (F-14), after satisfy_dependencies.sql in the same transaction: takes each child's
-- newly satisfied edges off its pending_deps. A decrement, never a count of satisfied parents
-- (timgit/pg-boss#777); on SQLite the one write lock orders the transactions anyway.
-- The two lists are JSON arrays paired by position (see complete_jobs.sql).
-- Index: primary key.
-- Parameters: ?1 child ids, ?2 satisfied edges per child, ?3 the child ids again (bound for the
--             PostgreSQL statement's plan; unused here beyond a null check).
WITH c_n AS MATERIALIZED (SELECT key, value FROM json_each(?2))
UPDATE {{jobs}}
SET pending_deps = pending_deps - c.n
FROM (SELECT c_id.value AS child_id, c_n.value AS n
      FROM json_each(?1) AS c_id
      JOIN c_n ON c_n.key = c_id.key) AS c
WHERE id = c.child_id
  AND ?3 IS NOT NULL
