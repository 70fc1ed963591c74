-- Skipjack schema, version 9 (MySQL 8.0.19+ / MariaDB 10.6+): workflows (F-14).
-- A workflow is a set of jobs, some of which depend on others of the same workflow. A job with
-- parents is inserted 'waiting', with pending_deps = its number of parents; the claim reads only
-- 'available' rows of the claim index, so waiting jobs cost it nothing. Each parent's completion
-- marks its edges satisfied and decrements its children's pending_deps in the parent's own
-- completion transaction, and a child left at zero is made available (docs/workflows.md).
-- remaining counts the workflow's jobs not yet terminal: the workflow finishes when it reaches
-- zero, and only then may its jobs be pruned (with it).
-- The two tables first (IF NOT EXISTS), then one ALTER TABLE of the jobs table, which commits by
-- itself and is recorded right after it.
CREATE TABLE IF NOT EXISTS {{workflows}} (
    id          BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name        VARCHAR(128) NOT NULL,
    state       VARCHAR(16)  NOT NULL DEFAULT 'running',
    policy      VARCHAR(16)  NOT NULL,
    remaining   INT          NOT NULL,
    created_at  DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    finished_at DATETIME(6),
    CONSTRAINT {{prefix}}workflows_name_chk CHECK (CHAR_LENGTH(name) BETWEEN 1 AND 128),
    CONSTRAINT {{prefix}}workflows_state_chk CHECK (state IN ('running', 'completed', 'failed', 'cancelled')),
    CONSTRAINT {{prefix}}workflows_policy_chk CHECK (policy IN ('cancel', 'continue')),
    -- Never below zero: a completion counted twice fails its transaction instead of passing silently.
    CONSTRAINT {{prefix}}workflows_remaining_chk CHECK (remaining >= 0),
    -- A finished workflow has a finish time; a running one has none.
    CONSTRAINT {{prefix}}workflows_finished_chk CHECK ((state = 'running') = (finished_at IS NULL)),
    -- Serves finished_workflows.sql (retention): finished workflows of one state in finish order.
    KEY {{prefix}}workflows_finished_idx (state, finished_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per edge: child_id runs only after parent_id. satisfied is set once, by the parent's
-- completion (or its failure under the CONTINUE policy), and only while it is false: that guard is
-- what keeps a completion recorded twice from decrementing the child twice.
CREATE TABLE IF NOT EXISTS {{job_dependencies}} (
    child_id  BIGINT  NOT NULL,
    parent_id BIGINT  NOT NULL,
    satisfied BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (child_id, parent_id),
    -- Serves satisfy_dependencies.sql and cancel_dependents.sql: the edges of a parent.
    KEY {{prefix}}job_dependencies_parent_idx (parent_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The new state 'waiting' joins the state check. The new check has a new name: dropping a check
-- and adding one of the same name in one statement is not promised on MySQL. DROP CONSTRAINT needs
-- MySQL 8.0.19 (MariaDB: 10.2). pending_deps is never negative, for the same reason as remaining.
-- output is what a handler recorded with Outcome.complete(output), readable by its children.
-- jobs_workflow_step_idx: one job per step name in a workflow; serves every read of a workflow's
-- jobs (status, finish state, retention). Jobs outside workflows have a NULL workflow_id, which
-- never collides (no partial indexes on this family).
ALTER TABLE {{jobs}}
    DROP CONSTRAINT {{prefix}}jobs_state_chk,
    ADD CONSTRAINT {{prefix}}jobs_state_waiting_chk CHECK (state IN
        ('waiting', 'scheduled', 'available', 'running', 'retryable', 'completed', 'discarded', 'cancelled')),
    ADD COLUMN workflow_id   BIGINT,
    ADD COLUMN workflow_step VARCHAR(128),
    ADD COLUMN pending_deps  INT NOT NULL DEFAULT 0,
    ADD COLUMN output        JSON,
    ADD CONSTRAINT {{prefix}}jobs_pending_deps_chk CHECK (pending_deps >= 0),
    ADD UNIQUE KEY {{prefix}}jobs_workflow_step_idx (workflow_id, workflow_step);
