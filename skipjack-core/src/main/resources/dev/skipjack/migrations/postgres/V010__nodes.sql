-- Skipjack schema, version 10: the nodes running now (F-14 item 7, operators' view).
-- One row per started client, refreshed by the node every few seconds and removed when it stops;
-- a row not refreshed for a minute is a node that died, shown as gone and deleted later.
CREATE TABLE IF NOT EXISTS {{nodes}} (
    worker_id    text        PRIMARY KEY,
    queues       text        NOT NULL,
    started_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL
);
