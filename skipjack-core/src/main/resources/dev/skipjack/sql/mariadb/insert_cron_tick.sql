-- Records a tick before its job is enqueued (F-11); error 1062 (read as "already recorded" by the
-- dialect, and rolled back alone) when the tick is already recorded: the backstop of once per tick.
-- Index: the unique (name, tick_at).
-- Parameters: name, tick.
INSERT INTO {{cron_ticks}} (name, tick_at) VALUES (?, ?)
