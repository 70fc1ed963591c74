-- Workflows (F-14), after decrement_pending_deps.sql in the same transaction, as its own statement,
-- step 1 of 2: locks and reads the given waiting children none of whose edges is pending any more.
-- Its own statement because MySQL evaluates an UPDATE's assignments left to right on the changed
-- row: a decrement and a test of the decremented column in one UPDATE would read the new value
-- on MySQL and the old one elsewhere. A locking read sees the latest committed pending_deps.
-- Index: primary key, driven by the id list.
-- Parameters: child ids (JSON array).
SELECT j.id, j.queue
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
WHERE j.state = 'waiting'
  AND j.pending_deps = 0
FOR UPDATE
