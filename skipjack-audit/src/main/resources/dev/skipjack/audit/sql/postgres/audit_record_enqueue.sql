-- One enqueue call of a UniqueEnqueuer process (audit_create_enqueues.sql).
-- Index: none (insert).
-- Parameters: process, thread, request key, in caller transaction, outcome, job id (or null),
--             duplicate (or null), error (or null).
INSERT INTO {{audit_enqueues}} (process, thread, request_key, in_caller_tx, outcome, job_id, duplicate, error)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
