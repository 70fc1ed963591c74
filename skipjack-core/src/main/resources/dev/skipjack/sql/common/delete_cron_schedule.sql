-- Removes a schedule (F-11); its recorded ticks stay until pruned, so re-adding it never repeats one.
-- Index: primary key.
-- Parameters: name.
DELETE FROM {{cron_schedules}} WHERE name = ?
