-- Which worker owns which server connection (CONNECTION_ID()), written by each worker connection
-- as it opens (audit_record_connection). The MySQL family's process list cannot tell one client's
-- connections from another's, so a driver that kills a connection (chaos) looks its worker up here
-- and records the fault against that worker. Small table; ids are reused only after a restart.
-- Index: primary key.
CREATE TABLE IF NOT EXISTS {{audit_connections}} (
    id     BIGINT       NOT NULL PRIMARY KEY,
    worker VARCHAR(255) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
