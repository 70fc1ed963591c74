-- The job a recorded tick enqueued, or the unfinished job of an earlier tick it was skipped for (F-11).
-- Index: primary key.
-- Parameters: job id, skipped, tick id.
UPDATE {{cron_ticks}}
SET job_id = ?, skipped = ?
WHERE id = ?
