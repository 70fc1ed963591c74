-- Skipjack schema, version 3: per-queue settings operators change at run time.
-- A row exists only for a queue someone paused or resumed; a queue without a row is running.
-- Every worker node reads the paused names every half second (paused_queues.sql).
CREATE TABLE {{queues}} (
    name       TEXT    PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    paused_at  INTEGER,
    updated_at INTEGER NOT NULL
);
