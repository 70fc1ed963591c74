-- The maintenance leader's lease row (leader_acquire.sql keeps it): a lease_until later than the
-- first one read on the new primary means a node renewed (or took) leadership there.
-- Index: primary key (name).
SELECT holder, lease_until FROM {{leader}} WHERE name = 'maintenance'
