-- The independent execution audit of fault tests and the chaos command (RELIABILITY.md): one row
-- per handler execution, written by the test handler itself (lease mode: its own transaction;
-- transactional mode: inside the job's transaction). started_at/finished_at are database time in
-- UTC, DATETIME(6) like the jobs table's times. MySQL has no CREATE INDEX IF NOT EXISTS, so the
-- index is declared here (no separate audit_create_executions_index on this dialect).
-- Index: audit_executions_job_idx serves every per-job check of the audit checker.
CREATE TABLE IF NOT EXISTS {{audit_executions}} (
    id          BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    job_id      BIGINT       NOT NULL,
    attempt     INT          NOT NULL,
    worker      VARCHAR(255) NOT NULL,
    pid         BIGINT       NOT NULL,
    started_at  DATETIME(6),
    finished_at DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    INDEX {{prefix}}audit_executions_job_idx (job_id, attempt)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
