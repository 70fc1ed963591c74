-- Workflows (F-14): the workflow row, running, with every one of its jobs still to end.
-- Parameters: name, policy, number of jobs.
INSERT INTO {{workflows}} (name, policy, remaining)
VALUES (?, ?, ?)
RETURNING id
