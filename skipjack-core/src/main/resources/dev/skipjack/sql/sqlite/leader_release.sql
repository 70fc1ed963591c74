-- Gives leadership up at shutdown so another node takes over at once instead of after the lease.
-- Index: primary key (name).
-- Parameters: role, holder.
DELETE FROM {{schema}}."{{prefix}}leader" WHERE name = ? AND holder = ?
