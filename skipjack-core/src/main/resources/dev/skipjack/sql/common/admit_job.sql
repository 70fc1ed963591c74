-- Concurrency limits and ordered keys (F-12, F-13), last statement of a key's admission: makes one
-- chosen waiting job available. Guarded by its state, so a job cancelled meanwhile stays cancelled.
-- Run as a batch, one per admitted job (at most the key's free slots).
-- Index: primary key.
-- Parameters: job id.
UPDATE {{jobs}}
SET state = 'available'
WHERE id = ?
  AND state = 'waiting'
