-- Skipjack schema, version 11 (SQLite): what a running handler reports (issue 12, item 6): its
-- latest progress (a percentage and an optional short message) and the log lines it appended, for
-- operators. Both are written by the worker that runs the execution, guarded by (job id, attempt,
-- running), and read only by operators: no statement of the job path reads these tables, and a job
-- that reports nothing never touches them.
-- Lines are keyed by execution (job id, attempt) and a number per execution; the worker keeps at
-- most Limits.MAX_LOG_LINES of an attempt (the latest) and the lines of the last
-- Limits.MAX_LOG_ATTEMPTS attempts.
CREATE TABLE IF NOT EXISTS {{job_logs}} (
    job_id    INTEGER NOT NULL,
    attempt   INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    logged_at INTEGER NOT NULL,
    line      TEXT    NOT NULL,
    PRIMARY KEY (job_id, attempt, seq)
) WITHOUT ROWID;

-- One row per job: the latest progress reported, by the attempt that reported it.
CREATE TABLE IF NOT EXISTS {{job_progress}} (
    job_id     INTEGER PRIMARY KEY,
    attempt    INTEGER NOT NULL,
    percent    INTEGER NOT NULL CHECK (percent BETWEEN 0 AND 100),
    message    TEXT,
    updated_at INTEGER NOT NULL
);

-- Both go with their job. SQLite enforces foreign keys only on connections that turn them on, so
-- a trigger does what ON DELETE CASCADE does on the other backends: pruning, an operator's delete
-- and a workflow's retention remove a job's reports without a statement of their own. A migration
-- that rebuilds the jobs table (as V009 did) drops this trigger with the old table and must create
-- it again. One line: the script is split at line-ending semicolons.
CREATE TRIGGER IF NOT EXISTS {{schema}}."{{prefix}}jobs_delete_reports" AFTER DELETE ON "{{prefix}}jobs" FOR EACH ROW BEGIN DELETE FROM "{{prefix}}job_logs" WHERE job_id = OLD.id; DELETE FROM "{{prefix}}job_progress" WHERE job_id = OLD.id; END;
