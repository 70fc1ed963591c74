-- Deletes recorded ticks older than the given time (F-11): the record only has to outlive any
-- clock step back, which is far shorter than the 30 days CronTicker keeps.
-- Index: cron_ticks_tick_idx.
-- Parameters: oldest tick kept.
DELETE FROM {{cron_ticks}} WHERE tick_at < ?
