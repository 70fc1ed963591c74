-- Skipjack schema, version 10: the nodes running now (operators' view).
-- One row per started client, refreshed by the node every few seconds and removed when it stops;
-- a row not refreshed for a minute is a node that died, shown as gone and deleted later.
CREATE TABLE IF NOT EXISTS {{nodes}} (
    worker_id    VARCHAR(255) NOT NULL PRIMARY KEY,
    queues       TEXT         NOT NULL,
    started_at   DATETIME(6)  NOT NULL,
    last_seen_at DATETIME(6)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
