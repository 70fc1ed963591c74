-- Run by every new connection of a worker JVM (the pool's init statement, so no bind parameters:
-- {{worker}} is the worker id as a literal, checked by AuditTables to be [A-Za-z0-9_.-]+).
-- Index: primary key.
REPLACE INTO {{audit_connections}} (id, worker) VALUES (CONNECTION_ID(), {{worker}})
