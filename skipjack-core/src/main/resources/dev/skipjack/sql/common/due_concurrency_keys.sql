-- Concurrency limits and ordered keys (F-12, F-13): the keys with a waiting job, for the admission
-- pass (every node's maintenance, each promotion interval), with whether one of its waiting jobs
-- is due. The pass admits what the admission after an enqueue or a completion did not: jobs
-- enqueued in a caller's transaction, jobs that came due, slots freed by a rescue, an operator or
-- a node that died before admitting.
-- In key order from after the last key the node's previous pass looked at, so that with more keys
-- than a pass takes every key gets its turn: in the order the rows came, the same keys, full and
-- with a backlog, came first on every pass, and a key behind them was never looked at.
-- It steps from key to key (a recursive query, one index probe per key), so a pass costs the
-- number of keys it looks at, not the number of waiting jobs: reading every due waiting row to
-- find its keys took 250 ms of PostgreSQL's CPU per pass with a million waiting (V016).
-- At most the given number of keys.
-- Index: jobs_waiting_key_idx (concurrency_key, run_at) WHERE state = 'waiting'. MariaDB and MySQL
-- have their own statement (sql/mariadb).
-- Parameters: the last key of the previous pass ('' to start from the first), how many keys at most.
WITH RECURSIVE waiting_keys (n, concurrency_key) AS (
    SELECT 1, (SELECT MIN(concurrency_key)
               FROM {{jobs}}
               WHERE state = 'waiting' AND concurrency_key IS NOT NULL AND concurrency_key > ?)
    UNION ALL
    SELECT k.n + 1, (SELECT MIN(j.concurrency_key)
                     FROM {{jobs}} j
                     WHERE j.state = 'waiting' AND j.concurrency_key IS NOT NULL
                       AND j.concurrency_key > k.concurrency_key)
    FROM waiting_keys k
    WHERE k.concurrency_key IS NOT NULL
      AND k.n < ?
)
SELECT k.concurrency_key,
       CASE WHEN EXISTS (SELECT 1
                         FROM {{jobs}} j
                         WHERE j.state = 'waiting' AND j.concurrency_key = k.concurrency_key
                           AND j.run_at <= {{statement_now}}
                           AND j.pending_deps = 0) THEN 1 ELSE 0 END AS due
FROM waiting_keys k
WHERE k.concurrency_key IS NOT NULL
ORDER BY k.n
