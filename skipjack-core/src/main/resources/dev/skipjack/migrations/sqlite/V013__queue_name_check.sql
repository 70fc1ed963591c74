-- Skipjack schema, version 13: queue names as Skipjack writes them (Limits.QUEUE_NAME), checked by
-- the database too, so a row inserted with plain SQL into a queue no worker can serve ('Default',
-- 'mail queue') is refused at its INSERT instead of waiting forever (issue 14).
-- SQLite cannot add a CHECK to a table, so two triggers do it (GLOB is case-sensitive; the length
-- is checked by the column's own CHECK). Rows already in the table are not checked.
CREATE TRIGGER IF NOT EXISTS {{schema}}."{{prefix}}jobs_queue_name_insert" BEFORE INSERT ON "{{prefix}}jobs" FOR EACH ROW WHEN NEW.queue NOT GLOB '[a-z0-9]*' OR NEW.queue GLOB '*[^a-z0-9_.-]*' BEGIN SELECT RAISE(ABORT, 'queue name must match [a-z0-9][a-z0-9_.-]{0,63}'); END;
CREATE TRIGGER IF NOT EXISTS {{schema}}."{{prefix}}jobs_queue_name_update" BEFORE UPDATE OF queue ON "{{prefix}}jobs" FOR EACH ROW WHEN NEW.queue NOT GLOB '[a-z0-9]*' OR NEW.queue GLOB '*[^a-z0-9_.-]*' BEGIN SELECT RAISE(ABORT, 'queue name must match [a-z0-9][a-z0-9_.-]{0,63}'); END;
