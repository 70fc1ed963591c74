-- Skipjack schema, version 7: cron schedules (F-11).
-- One row per schedule, with everything a node needs to enqueue its ticks (kind, queue, args,
-- options), so a schedule added at run time survives restarts and any started node can run it.
-- next_tick_at (epoch microseconds) is the next tick to enqueue, computed in Java from the
-- expression and zone and persisted: ticks never come from a node's memory or its clock.
-- definition_hash tells a changed definition from a node re-declaring it.
CREATE TABLE IF NOT EXISTS {{cron_schedules}} (
    name            TEXT    PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    expression      TEXT    NOT NULL,
    zone            TEXT    NOT NULL,
    kind            TEXT    NOT NULL CHECK (length(kind) BETWEEN 1 AND 128),
    queue           TEXT    NOT NULL CHECK (length(queue) BETWEEN 1 AND 64),
    args            TEXT    NOT NULL CHECK (json_valid(args)),
    priority        INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 100),
    max_attempts    INTEGER NOT NULL CHECK (max_attempts >= 1),
    misfire         TEXT    NOT NULL CHECK (misfire IN ('fire_once', 'skip', 'backfill')),
    allow_overlap   INTEGER NOT NULL CHECK (allow_overlap IN (0, 1)),
    definition_hash TEXT    NOT NULL,
    next_tick_at    INTEGER NOT NULL,
    last_tick_at    INTEGER,
    last_job_id     INTEGER,
    updated_at      INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000)
);

-- Serves due_cron_schedules.sql: schedules by next tick.
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}cron_schedules_due_idx ON "{{prefix}}cron_schedules" (next_tick_at);

-- One row per enqueued (or overlap-skipped) tick. The unique (name, tick_at) is the backstop of
-- "once per tick": a tick already recorded is never enqueued again, even if next_tick_at moved back.
CREATE TABLE IF NOT EXISTS {{cron_ticks}} (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    name      TEXT    NOT NULL,
    tick_at   INTEGER NOT NULL,
    job_id    INTEGER,
    skipped   INTEGER NOT NULL DEFAULT 0,
    fired_at  INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000),
    UNIQUE (name, tick_at)
);

-- Serves prune_cron_ticks.sql.
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}cron_ticks_tick_idx ON "{{prefix}}cron_ticks" (tick_at);
