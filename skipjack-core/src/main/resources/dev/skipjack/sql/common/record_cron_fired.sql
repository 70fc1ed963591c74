-- The last tick a schedule enqueued and its job (F-11), for operators.
-- Index: primary key.
-- Parameters: last tick, its job id, name.
UPDATE {{cron_schedules}}
SET last_tick_at = ?, last_job_id = ?
WHERE name = ?
