-- Skipjack schema, version 7: cron schedules (F-11).
-- One row per schedule, with everything a node needs to enqueue its ticks (kind, queue, args,
-- options), so a schedule added at run time survives restarts and any started node can run it.
-- next_tick_at (UTC) is the next tick to enqueue, computed in Java from the expression and zone
-- and persisted: ticks never come from a node's memory or its clock. definition_hash tells a
-- changed definition from a node re-declaring it.
CREATE TABLE IF NOT EXISTS {{cron_schedules}} (
    name            VARCHAR(128) NOT NULL PRIMARY KEY,
    expression      VARCHAR(255) NOT NULL,
    zone            VARCHAR(64)  NOT NULL,
    kind            VARCHAR(128) NOT NULL,
    queue           VARCHAR(64)  NOT NULL,
    args            JSON         NOT NULL,
    priority        SMALLINT     NOT NULL,
    max_attempts    INT          NOT NULL,
    misfire         VARCHAR(16)  NOT NULL,
    allow_overlap   BOOLEAN      NOT NULL,
    definition_hash VARCHAR(64)  NOT NULL,
    next_tick_at    DATETIME(6)  NOT NULL,
    last_tick_at    DATETIME(6),
    last_job_id     BIGINT,
    updated_at      DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    CONSTRAINT {{prefix}}cron_schedules_misfire_chk CHECK (misfire IN ('fire_once', 'skip', 'backfill')),
    -- Serves due_cron_schedules.sql: schedules by next tick.
    KEY {{prefix}}cron_schedules_due_idx (next_tick_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per enqueued (or overlap-skipped) tick. The unique (name, tick_at) is the backstop of
-- "once per tick": a tick already recorded is never enqueued again, even if next_tick_at moved back.
CREATE TABLE IF NOT EXISTS {{cron_ticks}} (
    id        BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name      VARCHAR(128) NOT NULL,
    tick_at   DATETIME(6)  NOT NULL,
    job_id    BIGINT,
    skipped   BOOLEAN      NOT NULL DEFAULT FALSE,
    fired_at  DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    UNIQUE KEY {{prefix}}cron_ticks_tick_uq (name, tick_at),
    -- Serves prune_cron_ticks.sql.
    KEY {{prefix}}cron_ticks_tick_idx (tick_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
