-- Tells listening workers (F-16) that jobs were inserted, in the inserting transaction, so the
-- notification is delivered at commit and never for a rolled-back insert (F-6). Executed once per
-- enqueue call, not once per row; PostgreSQL also folds identical notifications of one transaction.
-- Index: none (no table access).
-- Parameters: channel (see InsertNotifications.channel), payload (comma-separated queue names, or '*').
SELECT pg_notify(?, ?)
