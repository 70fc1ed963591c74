-- The independent execution audit of fault tests (RELIABILITY.md): one row per handler execution,
-- written by the test handler itself (lease mode: its own transaction; transactional mode: inside
-- the job's transaction). started_at/finished_at are database time in INTEGER epoch microseconds,
-- as the jobs table keeps its times (SQLite's clock: millisecond resolution).
-- Index: audit_executions_job_idx serves every per-job check of the audit checker.
CREATE TABLE IF NOT EXISTS {{audit_executions}} (
    id          INTEGER PRIMARY KEY,
    job_id      INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    worker      TEXT    NOT NULL,
    pid         INTEGER NOT NULL,
    started_at  INTEGER,
    finished_at INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000)
)
