-- Workflows (F-14), after satisfy_dependencies.sql in the same transaction: takes each child's
-- newly satisfied edges off its pending_deps. A decrement, never a count of satisfied parents: two
-- parents completing at once both decrement the one child row, and its row lock orders them, so
-- the second sees the first's result. Counting parents instead (a read) lets each transaction see
-- the other's parent unfinished, and the child is stranded (timgit/pg-boss#777).
-- Plan and lock order as complete_jobs.sql: by primary key, children in ascending id order.
-- Index: primary key.
-- Parameters: child ids (ascending), satisfied edges per child, the child ids again.
UPDATE {{jobs}} AS j
SET pending_deps = j.pending_deps - c.n
FROM unnest(?::bigint[], ?::int[]) AS c(id, n)
WHERE j.id = ANY (?::bigint[])
  AND j.id = c.id
