-- Concurrency-key probe (limit tests across processes): the executions of keyed jobs whose
-- handler is running now, one row from the handler's start to its end.
CREATE TABLE IF NOT EXISTS {{audit_running}} (
    job_id          INTEGER NOT NULL,
    attempt         INTEGER NOT NULL,
    concurrency_key TEXT    NOT NULL,
    PRIMARY KEY (job_id, attempt)
)
