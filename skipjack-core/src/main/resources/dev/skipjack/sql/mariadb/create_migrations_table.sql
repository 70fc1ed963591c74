-- Which migrations this schema and prefix have had.
CREATE TABLE IF NOT EXISTS {{migrations}} (
    version    INT          NOT NULL PRIMARY KEY,
    name       VARCHAR(200) NOT NULL,
    applied_at DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
