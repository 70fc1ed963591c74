-- Forgets nodes not seen since the given time: they died without stopping.
-- Parameters: oldest last-seen time kept.
DELETE FROM {{nodes}} WHERE last_seen_at < ?
