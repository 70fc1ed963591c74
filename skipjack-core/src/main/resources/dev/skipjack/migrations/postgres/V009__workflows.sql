-- Skipjack schema, version 9: workflows (F-14).
-- A workflow is a set of jobs, some of which depend on others of the same workflow. A job with
-- parents is inserted 'waiting', with pending_deps = its number of parents, and is outside every
-- index the claim reads; each parent's completion marks its edges satisfied and decrements its
-- children's pending_deps in the parent's own completion transaction, and a child left at zero is
-- made available (docs/workflows.md). remaining counts the workflow's jobs not yet terminal: the
-- workflow finishes when it reaches zero, and only then may its jobs be pruned (with it).
CREATE TABLE IF NOT EXISTS {{workflows}} (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 128),
    state       text        NOT NULL DEFAULT 'running'
                            CHECK (state IN ('running', 'completed', 'failed', 'cancelled')),
    policy      text        NOT NULL CHECK (policy IN ('cancel', 'continue')),
    -- Never below zero: a completion counted twice fails its transaction instead of passing silently.
    remaining   integer     NOT NULL CHECK (remaining >= 0),
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    -- A finished workflow has a finish time; a running one has none.
    CHECK ((state = 'running') = (finished_at IS NULL))
);

-- Serves finished_workflows.sql (retention): finished workflows of one state in finish order.
CREATE INDEX IF NOT EXISTS {{prefix}}workflows_finished_idx ON {{workflows}} (state, finished_at)
    WHERE state <> 'running';

-- One row per edge: child_id runs only after parent_id. satisfied is set once, by the parent's
-- completion (or its failure under the CONTINUE policy), and only while it is false: that guard is
-- what keeps a completion recorded twice from decrementing the child twice.
CREATE TABLE IF NOT EXISTS {{job_dependencies}} (
    child_id  bigint  NOT NULL,
    parent_id bigint  NOT NULL,
    satisfied boolean NOT NULL DEFAULT false,
    PRIMARY KEY (child_id, parent_id)
);

-- Serves satisfy_dependencies.sql and cancel_dependents.sql: the edges of a parent.
CREATE INDEX IF NOT EXISTS {{prefix}}job_dependencies_parent_idx ON {{job_dependencies}} (parent_id);

-- The new state 'waiting' (for its parents) joins the state check. The constraint PostgreSQL named
-- for V001's column check is replaced; NOT VALID because every existing row passed the narrower
-- check (this skips a scan of the whole table under the migration's lock), and new rows are checked.
-- pending_deps is never negative, for the same reason as remaining. output is what a handler
-- recorded with Outcome.complete(output), readable by its children.
ALTER TABLE {{jobs}}
    ADD COLUMN IF NOT EXISTS workflow_id   bigint,
    ADD COLUMN IF NOT EXISTS workflow_step text CHECK (char_length(workflow_step) BETWEEN 1 AND 128),
    ADD COLUMN IF NOT EXISTS pending_deps  integer NOT NULL DEFAULT 0 CHECK (pending_deps >= 0),
    ADD COLUMN IF NOT EXISTS output        jsonb,
    DROP CONSTRAINT IF EXISTS {{prefix}}jobs_state_check,
    ADD CONSTRAINT {{prefix}}jobs_state_check CHECK (state IN
        ('waiting', 'scheduled', 'available', 'running', 'retryable', 'completed', 'discarded', 'cancelled')) NOT VALID;

-- One job per step name in a workflow; serves every read of a workflow's jobs (status, the finish
-- state, retention). Partial: jobs outside workflows are not in it, so they cost it nothing.
CREATE UNIQUE INDEX IF NOT EXISTS {{prefix}}jobs_workflow_step_idx ON {{jobs}} (workflow_id, workflow_step)
    WHERE workflow_id IS NOT NULL;
