-- Concurrency limits and ordered keys (F-12, F-13): the keys with a waiting job, for the admission
-- pass, with whether one of its waiting jobs is due; as common/due_concurrency_keys.sql says, in
-- key order from after the last key the node's previous pass looked at.
-- A loose index scan ("Using index for group-by"): InnoDB jumps from one key's first entry to the
-- next key's, so a pass costs the number of keys, not the number of waiting jobs (reading every
-- due waiting row took MariaDB seconds a pass with a million waiting). The recursive query of the
-- other backends took 95 ms a step here: MariaDB does not stop its subquery at LIMIT 1 inside a
-- recursive query. MIN(run_at) is all a loose scan can read, so a key whose only due waiting jobs
-- wait for workflow parents counts as due too: its admission then finds nothing to admit.
-- state in GROUP BY and ORDER BY: a loose scan needs a leftmost prefix of the index.
-- Index: jobs_waiting_key_idx (state, concurrency_key, run_at).
-- Parameters: the last key of the previous pass ('' to start from the first), how many keys at most.
SELECT concurrency_key, CASE WHEN MIN(run_at) <= {{statement_now}} THEN 1 ELSE 0 END AS due
FROM {{jobs}} FORCE INDEX ({{prefix}}jobs_waiting_key_idx)
WHERE state = 'waiting'
  AND concurrency_key > ?
GROUP BY state, concurrency_key
ORDER BY state, concurrency_key
LIMIT ?
