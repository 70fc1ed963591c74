-- Concurrency limits and ordered keys (F-12, F-13): the keys with a waiting job, for the admission
-- pass, with whether one of its waiting jobs is due; as common/due_concurrency_keys.sql says, in
-- key order from after the last key the node's previous pass looked at.
-- The keys come from a loose index scan ("Using index for group-by") of waiting_key, the key of a
-- waiting job (V016): InnoDB jumps from one key's first entry to the next key's, so a pass costs
-- the number of keys, not the number of waiting jobs (reading every due waiting row took MariaDB
-- 40-60 s a pass with a million waiting). The recursive query of the other backends took 95 ms a
-- step here: MariaDB does not stop its subquery at LIMIT 1 inside a recursive query. A key is due
-- when one of its waiting jobs is due and waits for no workflow parent: one probe of the same
-- index per key.
-- Index: jobs_waiting_key_idx (waiting_key, run_at).
-- Parameters: the last key of the previous pass ('' to start from the first), how many keys at most.
SELECT k.waiting_key,
       CASE WHEN EXISTS (SELECT 1
                         FROM {{jobs}} j FORCE INDEX ({{prefix}}jobs_waiting_key_idx)
                         WHERE j.waiting_key = k.waiting_key
                           AND j.run_at <= {{statement_now}}
                           AND j.pending_deps = 0) THEN 1 ELSE 0 END AS due
FROM (SELECT waiting_key
      FROM {{jobs}} FORCE INDEX ({{prefix}}jobs_waiting_key_idx)
      WHERE waiting_key > ?
      GROUP BY waiting_key
      ORDER BY waiting_key
      LIMIT ?) AS k
ORDER BY k.waiting_key
