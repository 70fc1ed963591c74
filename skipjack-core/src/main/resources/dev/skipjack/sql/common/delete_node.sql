-- A node that stops takes itself off the operators' view.
-- Index: primary key.
-- Parameters: worker id.
DELETE FROM {{nodes}} WHERE worker_id = ?
