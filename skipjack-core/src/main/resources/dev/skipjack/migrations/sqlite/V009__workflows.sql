-- Skipjack schema, version 9 (SQLite): workflows (F-14).
-- A workflow is a set of jobs, some of which depend on others of the same workflow. A job with
-- parents is inserted 'waiting', with pending_deps = its number of parents, and is outside every
-- partial index the claim reads; each parent's completion marks its edges satisfied and decrements
-- its children's pending_deps in the parent's own completion transaction, and a child left at zero
-- is made available (docs/workflows.md). remaining counts the workflow's jobs not yet terminal:
-- the workflow finishes when it reaches zero, and only then may its jobs be pruned (with it).
--
-- SQLite cannot change a CHECK constraint in place, and the state check must learn 'waiting': the
-- jobs table is rebuilt the way SQLite documents (create the new table, copy, drop, rename,
-- recreate the indexes), inside the migration's transaction, so a failure leaves the old table as
-- it was. AUTOINCREMENT's high-water mark (sqlite_sequence) is carried over, so an id is never
-- reused even when the newest jobs were deleted before the upgrade. Indexes an operator added to
-- the jobs table by hand are not carried over.
CREATE TABLE {{schema}}."{{prefix}}jobs_v9" (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    queue         TEXT    NOT NULL CHECK (length(queue) BETWEEN 1 AND 64),
    kind          TEXT    NOT NULL CHECK (length(kind) BETWEEN 1 AND 128),
    args          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(args)),
    priority      INTEGER NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 100),
    state         TEXT    NOT NULL DEFAULT 'available' CHECK (state IN
                      ('waiting', 'scheduled', 'available', 'running', 'retryable', 'completed', 'discarded', 'cancelled')),
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
    unique_includes_completed INTEGER NOT NULL DEFAULT 0 CHECK (unique_includes_completed IN (0, 1)),
    workflow_id   INTEGER,
    workflow_step TEXT    CHECK (length(workflow_step) BETWEEN 1 AND 128),
    -- Never below zero: a completion counted twice fails its transaction instead of passing silently.
    pending_deps  INTEGER NOT NULL DEFAULT 0 CHECK (pending_deps >= 0),
    -- What a handler recorded with Outcome.complete(output), readable by its children.
    output        TEXT    CHECK (output IS NULL OR json_valid(output)),
    -- A terminal job has a finish time; a job that is not terminal has none.
    CHECK ((state IN ('completed', 'discarded', 'cancelled')) = (finished_at IS NOT NULL)),
    -- Only a running job holds a lease.
    CHECK (state = 'running' OR lease_until IS NULL)
);

INSERT INTO {{schema}}."{{prefix}}jobs_v9" (id, queue, kind, args, priority, state, run_at, attempt, max_attempts,
        errors, claimed_by, lease_until, created_at, attempted_at, finished_at, unique_key, tags, metadata,
        unique_includes_completed)
SELECT id, queue, kind, args, priority, state, run_at, attempt, max_attempts,
       errors, claimed_by, lease_until, created_at, attempted_at, finished_at, unique_key, tags, metadata,
       unique_includes_completed
FROM {{jobs}}
ORDER BY id;

-- The copy set the new table's sequence to the highest id copied; the old one may be higher.
DELETE FROM {{schema}}.sqlite_sequence WHERE name = '{{prefix}}jobs_v9';
INSERT INTO {{schema}}.sqlite_sequence (name, seq)
SELECT '{{prefix}}jobs_v9', seq FROM {{schema}}.sqlite_sequence WHERE name = '{{prefix}}jobs';

DROP TABLE {{jobs}};
ALTER TABLE {{schema}}."{{prefix}}jobs_v9" RENAME TO "{{prefix}}jobs";

-- The indexes of V001, V005 and V006, as they were, but for jobs_finished_idx, which now ends with
-- workflow_id: prune_jobs.sql leaves workflow jobs to their workflow's retention, and with the
-- column in the index SQLite still reads it as a covering index in finish order (without it, it
-- sorted the matching rows in a temporary b-tree first; SqlitePlanTest).
CREATE INDEX {{schema}}.{{prefix}}jobs_claim_idx ON "{{prefix}}jobs" (queue, priority, run_at)
    WHERE state = 'available';
CREATE INDEX {{schema}}.{{prefix}}jobs_due_idx ON "{{prefix}}jobs" (run_at)
    WHERE state IN ('scheduled', 'retryable');
CREATE INDEX {{schema}}.{{prefix}}jobs_lease_idx ON "{{prefix}}jobs" (lease_until)
    WHERE state = 'running';
CREATE INDEX {{schema}}.{{prefix}}jobs_finished_idx ON "{{prefix}}jobs" (state, finished_at, workflow_id)
    WHERE state IN ('completed', 'discarded', 'cancelled');
CREATE UNIQUE INDEX {{schema}}.{{prefix}}jobs_unique_idx ON "{{prefix}}jobs" (unique_key)
    WHERE unique_key IS NOT NULL
      AND (state IN ('scheduled', 'available', 'running', 'retryable')
           OR (state = 'completed' AND unique_includes_completed = 1));

-- One job per step name in a workflow; serves every read of a workflow's jobs (status, the finish
-- state, retention). Partial: jobs outside workflows are not in it, so they cost it nothing.
CREATE UNIQUE INDEX {{schema}}.{{prefix}}jobs_workflow_step_idx ON "{{prefix}}jobs" (workflow_id, workflow_step)
    WHERE workflow_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS {{workflows}} (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    state       TEXT    NOT NULL DEFAULT 'running'
                        CHECK (state IN ('running', 'completed', 'failed', 'cancelled')),
    policy      TEXT    NOT NULL CHECK (policy IN ('cancel', 'continue')),
    remaining   INTEGER NOT NULL CHECK (remaining >= 0),
    created_at  INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000),
    finished_at INTEGER,
    -- A finished workflow has a finish time; a running one has none.
    CHECK ((state = 'running') = (finished_at IS NULL))
);

-- Serves finished_workflows.sql (retention): finished workflows of one state in finish order.
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}workflows_finished_idx ON "{{prefix}}workflows" (state, finished_at)
    WHERE state <> 'running';

-- One row per edge: child_id runs only after parent_id. satisfied (0 or 1) is set once, by the
-- parent's completion (or its failure under the CONTINUE policy), and only while it is 0: that
-- guard is what keeps a completion recorded twice from decrementing the child twice.
CREATE TABLE IF NOT EXISTS {{job_dependencies}} (
    child_id  INTEGER NOT NULL,
    parent_id INTEGER NOT NULL,
    satisfied INTEGER NOT NULL DEFAULT 0 CHECK (satisfied IN (0, 1)),
    PRIMARY KEY (child_id, parent_id)
) WITHOUT ROWID;

-- Serves satisfy_dependencies.sql and cancel_dependents.sql: the edges of a parent.
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}job_dependencies_parent_idx ON "{{prefix}}job_dependencies" (parent_id);
