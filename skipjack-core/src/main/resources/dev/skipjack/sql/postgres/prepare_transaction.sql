-- Two-phase mode (F-5): prepares the job's transaction (the handler's work and the completion).
-- The global id is Skipjack's own (TwoPhaseKind.gid, validated parts only): PREPARE TRANSACTION
-- takes no bind parameter.
PREPARE TRANSACTION '{{gid}}'
