-- Skipjack schema, version 1 (SQLite 3.35+): the jobs table and the indexes its hot statements use.
-- SQLite has no schemas: {{schema}} is the database the tables live in ("main", or an attached one).
-- An index is created in that database on the bare table name: SQLite qualifies the index, not the
-- table it indexes.
-- Times are INTEGER epoch microseconds on the database clock ({{now}}: SQLite's 'now' has
-- millisecond resolution, so the last three digits are zero), so ordering and arithmetic are exact
-- integer operations and no text date format is ever compared. JSON lives in TEXT, checked valid.
-- id is AUTOINCREMENT: an id is never reused, even after the newest job was deleted.
-- Everything here runs in the migration's transaction: SQLite's DDL is transactional.
CREATE TABLE {{jobs}} (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    queue         TEXT    NOT NULL CHECK (length(queue) BETWEEN 1 AND 64),
    kind          TEXT    NOT NULL CHECK (length(kind) BETWEEN 1 AND 128),
    args          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(args)),
    priority      INTEGER NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 100),
    state         TEXT    NOT NULL DEFAULT 'available' CHECK (state IN
                      ('scheduled', 'available', 'running', 'retryable', 'completed', 'discarded', 'cancelled')),
    run_at        INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000),
    attempt       INTEGER NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    max_attempts  INTEGER NOT NULL DEFAULT 25 CHECK (max_attempts >= 1),
    errors        TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(errors)),
    claimed_by    TEXT,
    lease_until   INTEGER,
    created_at    INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000),
    attempted_at  INTEGER,
    finished_at   INTEGER,
    unique_key    TEXT,
    tags          TEXT    NOT NULL DEFAULT '[]',
    metadata      TEXT    NOT NULL DEFAULT '{}',
    -- A terminal job has a finish time; a job that is not terminal has none.
    CHECK ((state IN ('completed', 'discarded', 'cancelled')) = (finished_at IS NOT NULL)),
    -- Only a running job holds a lease.
    CHECK (state = 'running' OR lease_until IS NULL)
);

-- Serves claim.sql: the available jobs of a queue in claim order. The rowid (id) ends every SQLite
-- index, so the index order is exactly (priority, run_at, id): the claim reads it in order and
-- stops after LIMIT rows, with no temporary b-tree for the ORDER BY (ClaimPlanTest).
CREATE INDEX {{schema}}.{{prefix}}jobs_claim_idx ON "{{prefix}}jobs" (queue, priority, run_at)
    WHERE state = 'available';

-- Serves promote_due_jobs.sql: scheduled and retryable jobs by due time.
CREATE INDEX {{schema}}.{{prefix}}jobs_due_idx ON "{{prefix}}jobs" (run_at)
    WHERE state IN ('scheduled', 'retryable');

-- Serves rescue_expired_leases.sql: running jobs by lease expiry.
CREATE INDEX {{schema}}.{{prefix}}jobs_lease_idx ON "{{prefix}}jobs" (lease_until)
    WHERE state = 'running';
