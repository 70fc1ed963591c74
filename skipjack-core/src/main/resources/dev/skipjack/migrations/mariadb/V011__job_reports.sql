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
    job_id    BIGINT      NOT NULL,
    attempt   INT         NOT NULL,
    seq       INT         NOT NULL,
    logged_at DATETIME(6) NOT NULL,
    line      TEXT        NOT NULL,
    PRIMARY KEY (job_id, attempt, seq),
    CONSTRAINT {{prefix}}job_logs_job_fk FOREIGN KEY (job_id) REFERENCES {{jobs}} (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per job: the latest progress reported, by the attempt that reported it.
CREATE TABLE IF NOT EXISTS {{job_progress}} (
    job_id     BIGINT      NOT NULL PRIMARY KEY,
    attempt    INT         NOT NULL,
    percent    SMALLINT    NOT NULL,
    message    TEXT,
    updated_at DATETIME(6) NOT NULL,
    CONSTRAINT {{prefix}}job_progress_percent_chk CHECK (percent BETWEEN 0 AND 100),
    CONSTRAINT {{prefix}}job_progress_job_fk FOREIGN KEY (job_id) REFERENCES {{jobs}} (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
