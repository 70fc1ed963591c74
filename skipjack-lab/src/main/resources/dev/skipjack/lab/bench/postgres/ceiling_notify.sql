-- Raw LISTEN/NOTIFY ceiling on PostgreSQL, wake-up: sent in the enqueue's transaction, delivered at its commit.
-- Parameters: channel.
SELECT pg_notify(?, '')
