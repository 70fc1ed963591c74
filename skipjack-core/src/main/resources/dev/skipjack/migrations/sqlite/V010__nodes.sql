-- Skipjack schema, version 10: the nodes running now (operators' view).
-- One row per started client, refreshed by the node every few seconds and removed when it stops;
-- a row not refreshed for a minute is a node that died, shown as gone and deleted later.
-- Times are epoch microseconds on the database clock.
CREATE TABLE IF NOT EXISTS {{nodes}} (
    worker_id    TEXT    PRIMARY KEY,
    queues       TEXT    NOT NULL,
    started_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
);
