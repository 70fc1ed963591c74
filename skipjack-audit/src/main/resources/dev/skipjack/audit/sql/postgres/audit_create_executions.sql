-- The independent execution audit of fault tests and the chaos command (RELIABILITY.md): one row
-- per handler execution, written by the test handler itself (lease mode: its own transaction;
-- transactional mode: inside the job's transaction). started_at/finished_at are database time.
-- Index: audit_executions_job_idx serves every per-job check of the audit checker.
CREATE TABLE IF NOT EXISTS {{audit_executions}} (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id      bigint      NOT NULL,
    attempt     integer     NOT NULL,
    worker      text        NOT NULL,
    pid         bigint      NOT NULL,
    started_at  timestamptz,
    finished_at timestamptz NOT NULL DEFAULT clock_timestamp()
)
