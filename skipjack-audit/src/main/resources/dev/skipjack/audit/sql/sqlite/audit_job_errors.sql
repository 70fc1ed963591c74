-- The jobs' error histories, one row per entry: job id, kind, state, claimed_by, the job's attempt,
-- and the entry's attempt, class and worker. For the fault tests' own checks (which worker a lease
-- was taken from, what a poison job failed with), judged in Java so every backend reads the same.
-- Jobs without errors have no row; a job's entries come in their order in the history.
-- Index: none; a scan run once after a test.
SELECT j.id, j.kind, j.state, j.claimed_by, j.attempt,
       CAST(json_extract(e.value, '$.attempt') AS INTEGER),
       json_extract(e.value, '$.class'),
       json_extract(e.value, '$.worker')
FROM {{jobs}} j, json_each(j.errors) e
ORDER BY j.id, e.key
