-- Skipjack schema, version 11: what a running handler reports (issue 12, item 6): its latest
-- progress (a percentage and an optional short message) and the log lines it appended, for
-- operators. Both are written by the worker that runs the execution, guarded by (job id, attempt,
-- running), and read only by operators: no statement of the job path reads these tables, and a job
-- that reports nothing never touches them.
-- Lines are keyed by execution (job id, attempt) and a number per execution; the worker keeps at
-- most Limits.MAX_LOG_LINES of an attempt (the latest) and the lines of the last
-- Limits.MAX_LOG_ATTEMPTS attempts. Both tables go with their job: ON DELETE CASCADE, so pruning,
-- an operator's delete and a workflow's retention remove them without a statement of their own.
CREATE TABLE IF NOT EXISTS {{job_logs}} (
    job_id    bigint      NOT NULL REFERENCES {{jobs}} (id) ON DELETE CASCADE,
    attempt   integer     NOT NULL,
    seq       integer     NOT NULL,
    logged_at timestamptz NOT NULL,
    line      text        NOT NULL,
    PRIMARY KEY (job_id, attempt, seq)
);

-- One row per job: the latest progress reported, by the attempt that reported it.
CREATE TABLE IF NOT EXISTS {{job_progress}} (
    job_id     bigint      PRIMARY KEY REFERENCES {{jobs}} (id) ON DELETE CASCADE,
    attempt    integer     NOT NULL,
    percent    smallint    NOT NULL CHECK (percent BETWEEN 0 AND 100),
    message    text,
    updated_at timestamptz NOT NULL
);
