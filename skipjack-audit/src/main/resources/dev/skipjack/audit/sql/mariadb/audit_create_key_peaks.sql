-- Concurrency-key probe: per execution of a keyed job, how many executions of its key were running
-- when it began, itself included. The largest per key is the most that ran at once.
CREATE TABLE IF NOT EXISTS {{audit_key_peaks}} (
    job_id          BIGINT       NOT NULL,
    attempt         INT          NOT NULL,
    concurrency_key VARCHAR(255) NOT NULL,
    running         BIGINT       NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
