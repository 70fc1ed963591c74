-- Skipjack schema, version 3: per-queue settings operators change at run time.
-- A row exists only for a queue someone paused or resumed; a queue without a row is running.
-- Every worker node reads the paused names every half second (paused_queues.sql), so a pause
-- takes effect on all nodes within about a second without any node-to-node messaging.

CREATE TABLE {{queues}} (
    name       text        PRIMARY KEY CHECK (char_length(name) BETWEEN 1 AND 64),
    paused_at  timestamptz,
    updated_at timestamptz NOT NULL DEFAULT now()
);
