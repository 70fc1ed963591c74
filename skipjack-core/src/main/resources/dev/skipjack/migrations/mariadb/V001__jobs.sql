-- Skipjack schema, version 1 (MySQL 8.0+ / MariaDB 10.6+): the jobs table and the indexes its hot
-- statements use. Table and index names are rendered from the validated schema and prefix.
-- InnoDB (row locks, SKIP LOCKED), utf8mb4 with a binary collation (queue and kind names compare
-- exactly, as on PostgreSQL). Times are DATETIME(6) in UTC: written with UTC_TIMESTAMP(6), never
-- converted through the session's time zone, microseconds as on PostgreSQL.
-- No partial indexes on this family: each index has the state as a leading column instead, so it
-- still yields rows in the order its statement reads them (EXPLAIN: no filesort).
-- IF NOT EXISTS: DDL commits by itself here, so a migration interrupted halfway can run again.
CREATE TABLE IF NOT EXISTS {{jobs}} (
    id            BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    queue         VARCHAR(64)  NOT NULL,
    kind          VARCHAR(128) NOT NULL,
    args          JSON         NOT NULL DEFAULT ('{}'),
    priority      SMALLINT     NOT NULL DEFAULT 0,
    state         VARCHAR(16)  NOT NULL DEFAULT 'available',
    run_at        DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    attempt       INT          NOT NULL DEFAULT 0,
    max_attempts  INT          NOT NULL DEFAULT 25,
    errors        JSON         NOT NULL DEFAULT ('[]'),
    claimed_by    VARCHAR(255),
    lease_until   DATETIME(6),
    created_at    DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    attempted_at  DATETIME(6),
    finished_at   DATETIME(6),
    unique_key    VARCHAR(255),
    tags          JSON         NOT NULL DEFAULT ('[]'),
    metadata      JSON         NOT NULL DEFAULT ('{}'),
    CONSTRAINT {{prefix}}jobs_queue_chk CHECK (CHAR_LENGTH(queue) BETWEEN 1 AND 64),
    CONSTRAINT {{prefix}}jobs_kind_chk CHECK (CHAR_LENGTH(kind) BETWEEN 1 AND 128),
    CONSTRAINT {{prefix}}jobs_priority_chk CHECK (priority BETWEEN 0 AND 100),
    CONSTRAINT {{prefix}}jobs_state_chk CHECK (state IN
        ('scheduled', 'available', 'running', 'retryable', 'completed', 'discarded', 'cancelled')),
    CONSTRAINT {{prefix}}jobs_attempt_chk CHECK (attempt >= 0),
    CONSTRAINT {{prefix}}jobs_max_attempts_chk CHECK (max_attempts >= 1),
    -- A terminal job has a finish time; a job that is not terminal has none.
    CONSTRAINT {{prefix}}jobs_finished_chk CHECK ((state IN ('completed', 'discarded', 'cancelled')) = (finished_at IS NOT NULL)),
    -- Only a running job holds a lease.
    CONSTRAINT {{prefix}}jobs_lease_chk CHECK (state = 'running' OR lease_until IS NULL),
    -- Serves claim.sql: equality on queue and state, then the claim order, so the claim walks the
    -- index in order and stops after LIMIT rows. InnoDB locks every index record it scans, so an
    -- index that needed a filesort would lock every available job of the queue (ClaimPlanTest).
    KEY {{prefix}}jobs_claim_idx (queue, state, priority, run_at, id),
    -- Serves promote_due_jobs.sql: scheduled and retryable jobs by due time.
    KEY {{prefix}}jobs_due_idx (state, run_at),
    -- Serves rescue_expired_leases.sql: running jobs by lease expiry.
    KEY {{prefix}}jobs_lease_idx (state, lease_until)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
