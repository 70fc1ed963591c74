-- Concurrency-key probe (limit tests across processes): the executions of keyed jobs whose
-- handler is running now, one row from the handler's start to its end.
CREATE TABLE IF NOT EXISTS {{audit_running}} (
    job_id          BIGINT       NOT NULL,
    attempt         INT          NOT NULL,
    concurrency_key VARCHAR(255) NOT NULL,
    PRIMARY KEY (job_id, attempt),
    KEY audit_running_key_idx (concurrency_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
