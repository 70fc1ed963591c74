-- How many jobs a worker holds now (the failover run kills the leader while it holds some, so
-- their rescue is measured).
-- Index: none that fits; a small table, once per fault.
-- Parameters: worker id.
SELECT count(*) FROM {{jobs}} WHERE state = 'running' AND claimed_by = ?
