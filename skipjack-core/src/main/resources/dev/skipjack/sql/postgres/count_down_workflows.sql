-- Workflows (F-14), in the transaction that ended some of their jobs: takes the jobs that became
-- terminal off each workflow's remaining count. Last in its transaction, so the workflow row is
-- the last lock taken (every such transaction takes it last: no lock cycle through it).
-- Index: primary key.
-- Parameters: workflow ids (ascending), jobs ended per workflow, the workflow ids again.
UPDATE {{workflows}} AS w
SET remaining = w.remaining - c.n
FROM unnest(?::bigint[], ?::int[]) AS c(id, n)
WHERE w.id = ANY (?::bigint[])
  AND w.id = c.id
