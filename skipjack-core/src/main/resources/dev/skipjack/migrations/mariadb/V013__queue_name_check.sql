-- Skipjack schema, version 13: queue names as Skipjack writes them (Limits.QUEUE_NAME), checked by
-- the database too, so a row inserted with plain SQL into a queue no worker can serve ('Default',
-- 'mail queue') is refused at its INSERT instead of waiting forever (issue 14). The column's
-- binary collation makes REGEXP case-sensitive, as on the other backends.
-- MariaDB and MySQL check the rows already in the table when the constraint is added: a table
-- holding such a row stops this migration with the constraint's name (CHANGELOG, upgrade notes).
ALTER TABLE {{jobs}} ADD CONSTRAINT {{prefix}}jobs_queue_name_chk
    CHECK (queue REGEXP '^[a-z0-9][a-z0-9_.-]{0,63}$');
