-- Deletes one kind's jobs between runs, leaving every other row (the depth workload's filler) in place.
-- Index: none; a sequential scan, outside any timed phase (terminal rows are in no partial index).
-- Parameters: kind.
DELETE FROM {{jobs}} WHERE kind = ?
