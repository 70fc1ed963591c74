-- Skipjack schema, version 3: per-queue settings operators change at run time.
-- A row exists only for a queue someone paused or resumed; a queue without a row is running.
-- Every worker node reads the paused names every half second (paused_queues.sql).
CREATE TABLE IF NOT EXISTS {{queues}} (
    name       VARCHAR(64) NOT NULL PRIMARY KEY,
    paused_at  DATETIME(6),
    updated_at DATETIME(6) NOT NULL,
    CONSTRAINT {{prefix}}queues_name_chk CHECK (CHAR_LENGTH(name) BETWEEN 1 AND 64)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
