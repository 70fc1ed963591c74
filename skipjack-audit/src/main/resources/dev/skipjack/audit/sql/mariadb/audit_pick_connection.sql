-- One random open connection of this audit's workers, with its worker: the chaos driver kills it
-- (KILL CONNECTION) and records the fault against that worker.
-- Index: primary key of the connections table; PROCESSLIST is small.
SELECT p.ID, c.worker
FROM information_schema.PROCESSLIST p
JOIN {{audit_connections}} c ON c.id = p.ID
WHERE p.ID <> CONNECTION_ID()
ORDER BY RAND()
LIMIT 1
