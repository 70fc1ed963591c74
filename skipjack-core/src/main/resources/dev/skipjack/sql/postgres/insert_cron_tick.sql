-- Records a tick before its job is enqueued (F-11); no row back when the tick is already recorded,
-- which is the backstop of once per tick. ON CONFLICT DO NOTHING: never an error in the transaction.
-- Index: the unique (name, tick_at).
-- Parameters: name, tick.
INSERT INTO {{cron_ticks}} (name, tick_at) VALUES (?, ?)
ON CONFLICT DO NOTHING
RETURNING id
