-- Faults the test or chaos driver injected, so the checker can tell an explained second execution
-- (its earlier worker was killed, cut off, stopped) from an unexplained one. worker '*' means every
-- worker (a database restart). at is UTC database time. Small table: scanned whole.
CREATE TABLE IF NOT EXISTS {{audit_faults}} (
    id     BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    worker VARCHAR(255) NOT NULL,
    kind   VARCHAR(64)  NOT NULL,
    at     DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
