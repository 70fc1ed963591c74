-- Skipjack schema, version 13: queue names as Skipjack writes them (Limits.QUEUE_NAME), checked by
-- the database too, so a row inserted with plain SQL into a queue no worker can serve ('Default',
-- 'mail queue') is refused at its INSERT instead of waiting forever (issue 14).
-- NOT VALID: rows already in the table are not checked (a bad one stays, and is reported as
-- unserved); every new or updated row is.
ALTER TABLE {{jobs}} ADD CONSTRAINT {{prefix}}jobs_queue_name_chk
    CHECK (queue ~ '^[a-z0-9][a-z0-9_.-]{0,63}$') NOT VALID;
