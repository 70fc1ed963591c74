-- The enqueue audit of UniqueAcrossProcessesTest: one row per enqueue call of a UniqueEnqueuer
-- process. A caller that committed its own transaction writes its row inside that transaction, so
-- the row exists exactly when the caller's commit happened; rolled-back and failed calls are
-- written afterwards on their own. job_id and duplicate are what Skipjack returned (null when the
-- call failed). Small table: scanned whole.
CREATE TABLE IF NOT EXISTS {{audit_enqueues}} (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    process      text    NOT NULL,
    thread       integer NOT NULL,
    request_key  text    NOT NULL,
    in_caller_tx boolean NOT NULL,
    outcome      text    NOT NULL CHECK (outcome IN ('committed', 'rolled_back', 'failed')),
    job_id       bigint,
    duplicate    boolean,
    error        text
)
