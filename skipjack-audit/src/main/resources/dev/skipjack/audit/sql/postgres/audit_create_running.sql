-- Concurrency-key probe (limit tests across processes): the executions of keyed jobs whose
-- handler is running now, one row from the handler's start to its end.
CREATE TABLE IF NOT EXISTS {{audit_running}} (
    job_id          bigint  NOT NULL,
    attempt         integer NOT NULL,
    concurrency_key text    NOT NULL,
    PRIMARY KEY (job_id, attempt)
)
