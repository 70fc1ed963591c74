-- Every cron schedule (F-11) for operators, by name.
-- Index: primary key.
SELECT name, expression, zone, kind, queue, args, misfire, allow_overlap, next_tick_at, last_tick_at, last_job_id
FROM {{cron_schedules}}
ORDER BY name
