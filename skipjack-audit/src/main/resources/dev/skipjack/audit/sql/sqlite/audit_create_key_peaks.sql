-- Concurrency-key probe: per execution of a keyed job, how many executions of its key were running
-- when it began, itself included. The largest per key is the most that ran at once.
CREATE TABLE IF NOT EXISTS {{audit_key_peaks}} (
    job_id          INTEGER NOT NULL,
    attempt         INTEGER NOT NULL,
    concurrency_key TEXT    NOT NULL,
    running         INTEGER NOT NULL
)
