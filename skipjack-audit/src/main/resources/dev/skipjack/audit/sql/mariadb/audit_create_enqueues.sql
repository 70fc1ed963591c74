-- The enqueue audit of UniqueAcrossProcessesTest: one row per enqueue call of a UniqueEnqueuer
-- process. A caller that committed its own transaction writes its row inside that transaction, so
-- the row exists exactly when the caller's commit happened; rolled-back and failed calls are
-- written afterwards on their own. job_id and duplicate are what Skipjack returned (null when the
-- call failed). Small table: scanned whole.
CREATE TABLE IF NOT EXISTS {{audit_enqueues}} (
    id           BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    process      VARCHAR(255) NOT NULL,
    thread       INT          NOT NULL,
    request_key  VARCHAR(255) NOT NULL,
    in_caller_tx BOOLEAN      NOT NULL,
    outcome      VARCHAR(16)  NOT NULL CHECK (outcome IN ('committed', 'rolled_back', 'failed')),
    job_id       BIGINT,
    duplicate    BOOLEAN,
    error        TEXT
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
