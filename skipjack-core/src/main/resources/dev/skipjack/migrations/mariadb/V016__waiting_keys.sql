-- Skipjack schema, version 16: the keys with a waiting job, in key order, for the admission
-- pass's step from one key to the next (as the PostgreSQL migration says); until now the pass read
-- every due waiting row through jobs_due_idx (state, run_at). InnoDB builds it in place, without
-- blocking writes.
ALTER TABLE {{jobs}} ADD KEY {{prefix}}jobs_waiting_key_idx (state, concurrency_key, run_at)
