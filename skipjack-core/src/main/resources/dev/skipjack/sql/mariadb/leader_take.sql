-- Takes or renews leadership of a role when the row is ours or its lease has expired, on the
-- database clock. A single-table UPDATE checks WHERE before it assigns, so the takeover is
-- conditional on the old holder. 0 rows: someone else leads, or there is no row yet
-- (leader_insert.sql). lease_until always moves, so found and changed row counts agree.
-- Index: primary key (name).
-- Parameters: holder, term in milliseconds, role, holder.
UPDATE {{schema}}.`{{prefix}}leader`
SET holder      = ?,
    lease_until = {{now}} + INTERVAL (? * 1000) MICROSECOND
WHERE name = ?
  AND (holder = ? OR lease_until < {{now}})
