-- hosts: the worker that holds the maintenance leadership (lease rescue among it) right now, so a
-- cut's recovery time can be read knowing whether the cut host was the one that rescues.
-- Index: primary key (name).
SELECT holder
FROM {{leader}}
WHERE name = 'maintenance'
  AND lease_until > clock_timestamp()
