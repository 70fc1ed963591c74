-- Workflows (F-14): the workflow row, running, with every one of its jobs still to end. The id is
-- the generated key (MySQL has no INSERT ... RETURNING).
-- Parameters: name, policy, number of jobs.
INSERT INTO {{workflows}} (name, policy, remaining)
VALUES (?, ?, ?)
