-- Skipjack schema, version 4: leadership of periodic maintenance (rescuer, pruner).
-- One row per role; the holder keeps it by renewing lease_until on the database clock. Plain rows
-- and single statements (leader_take.sql, leader_insert.sql), no session lock held between rounds.
CREATE TABLE IF NOT EXISTS {{schema}}.`{{prefix}}leader` (
    name        VARCHAR(64)  NOT NULL PRIMARY KEY,
    holder      VARCHAR(255) NOT NULL,
    lease_until DATETIME(6)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
