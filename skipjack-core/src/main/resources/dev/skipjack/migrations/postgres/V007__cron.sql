-- Skipjack schema, version 7: cron schedules (F-11).
-- One row per schedule, with everything a node needs to enqueue its ticks (kind, queue, args,
-- options), so a schedule added at run time survives restarts and any started node can run it.
-- next_tick_at is the next tick to enqueue, computed in Java from the expression and zone and
-- persisted: ticks never come from a node's memory or its clock, only from this column and the
-- database's now. definition_hash tells a changed definition from a node re-declaring it.
CREATE TABLE IF NOT EXISTS {{cron_schedules}} (
    name            text        PRIMARY KEY CHECK (char_length(name) BETWEEN 1 AND 128),
    expression      text        NOT NULL,
    zone            text        NOT NULL,
    kind            text        NOT NULL CHECK (char_length(kind) BETWEEN 1 AND 128),
    queue           text        NOT NULL CHECK (char_length(queue) BETWEEN 1 AND 64),
    args            jsonb       NOT NULL,
    priority        smallint    NOT NULL CHECK (priority BETWEEN 0 AND 100),
    max_attempts    integer     NOT NULL CHECK (max_attempts >= 1),
    misfire         text        NOT NULL CHECK (misfire IN ('fire_once', 'skip', 'backfill')),
    allow_overlap   boolean     NOT NULL,
    definition_hash text        NOT NULL,
    next_tick_at    timestamptz NOT NULL,
    last_tick_at    timestamptz,
    last_job_id     bigint,
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Serves due_cron_schedules.sql: schedules by next tick.
CREATE INDEX IF NOT EXISTS {{prefix}}cron_schedules_due_idx ON {{cron_schedules}} (next_tick_at);

-- One row per enqueued (or overlap-skipped) tick. The unique (name, tick_at) is the backstop of
-- "once per tick": even if next_tick_at were moved back (a clock stepped back, a redefinition),
-- a tick already recorded is never enqueued again. Pruned after 30 days (prune_cron_ticks.sql).
CREATE TABLE IF NOT EXISTS {{cron_ticks}} (
    id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name      text        NOT NULL,
    tick_at   timestamptz NOT NULL,
    job_id    bigint,
    skipped   boolean     NOT NULL DEFAULT false,
    fired_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (name, tick_at)
);

-- Serves prune_cron_ticks.sql.
CREATE INDEX IF NOT EXISTS {{prefix}}cron_ticks_tick_idx ON {{cron_ticks}} (tick_at);
