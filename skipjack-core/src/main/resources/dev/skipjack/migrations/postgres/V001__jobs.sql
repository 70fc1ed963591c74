-- Skipjack schema, version 1: the jobs table and the indexes its hot statements use.
-- Table and index names below are rendered from the validated schema and prefix.

CREATE TABLE {{jobs}} (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue         text        NOT NULL CHECK (char_length(queue) BETWEEN 1 AND 64),
    kind          text        NOT NULL CHECK (char_length(kind) BETWEEN 1 AND 128),
    args          jsonb       NOT NULL DEFAULT '{}',
    priority      smallint    NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 100),
    state         text        NOT NULL DEFAULT 'available' CHECK (state IN
                      ('scheduled', 'available', 'running', 'retryable', 'completed', 'discarded', 'cancelled')),
    run_at        timestamptz NOT NULL DEFAULT now(),
    attempt       integer     NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    max_attempts  integer     NOT NULL DEFAULT 25 CHECK (max_attempts >= 1),
    errors        jsonb       NOT NULL DEFAULT '[]',
    claimed_by    text,
    lease_until   timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    attempted_at  timestamptz,
    finished_at   timestamptz,
    unique_key    text,
    tags          text[]      NOT NULL DEFAULT '{}',
    metadata      jsonb       NOT NULL DEFAULT '{}',
    -- A terminal job has a finish time; a job that is not terminal has none.
    CHECK ((state IN ('completed', 'discarded', 'cancelled')) = (finished_at IS NOT NULL)),
    -- Only a running job holds a lease.
    CHECK (state = 'running' OR lease_until IS NULL)
);

-- Serves claim.sql: the claim walks this index in claim order and stops after LIMIT rows.
-- Only available jobs are in it, so it stays small however many finished rows the table holds.
CREATE INDEX {{prefix}}jobs_claim_idx ON {{jobs}} (queue, priority, run_at, id) WHERE state = 'available';

-- Serves promote_due_jobs.sql: scheduled and retryable jobs in due order.
CREATE INDEX {{prefix}}jobs_due_idx ON {{jobs}} (run_at) WHERE state IN ('scheduled', 'retryable');

-- Serves rescue_expired_leases.sql: running jobs by lease expiry.
CREATE INDEX {{prefix}}jobs_lease_idx ON {{jobs}} (lease_until) WHERE state = 'running';
