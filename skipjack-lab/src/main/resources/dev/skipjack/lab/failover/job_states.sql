-- Every job's argument n (the producer's own numbering, AuditedWorker.Work), state and attempt:
-- read on the primary just before each fault (which jobs were completed then) and once after the
-- run, to compare with what was acknowledged. Ids cannot be compared after losing transactions: a
-- promoted standby can hand out again ids whose inserts it never received.
-- Index: none; a scan per fault and once after the run, over at most a few ten thousand rows.
SELECT (args ->> 'n')::int, state, attempt FROM {{jobs}}
