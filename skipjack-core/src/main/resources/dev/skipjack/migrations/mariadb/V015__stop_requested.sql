-- Skipjack schema, version 15: stop_requested, the state an operator asked a running job to end in
-- ('cancelled' or 'discarded'). An operator's cancel or discard of a running job no longer ends it
-- at once: the job stays running, holding its concurrency slot, its sequence turn and its unique
-- key, until its worker ends the execution (the handler is interrupted at the worker's next
-- heartbeat) or, should the worker be gone, until its lease expires. Ended at once, a retry or a
-- key's next job could start beside a handler that had not stopped yet.
-- It belongs to the current execution: read only on running rows, reset by every claim.
-- No CHECK constraint: on PostgreSQL it would scan the whole table under the ALTER's exclusive
-- lock; the statements that read it only take 'cancelled' or 'discarded' from it.
ALTER TABLE {{jobs}} ADD COLUMN stop_requested VARCHAR(16) NULL
