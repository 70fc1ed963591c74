-- Audit figure: for every worker killed by the driver, seconds from the kill to the last rescue of
-- a job that worker held (the LeaseExpired entry the rescuer wrote names the worker; its 'at' is
-- UTC text, '2026-01-31T12:00:00.123Z', read here as epoch microseconds). The maximum over kills
-- is the run's worst recovery time (the maximum over kill/rescue pairs is the same number); null
-- when nothing needed rescuing.
-- Index: none; a scan run once after a test.
SELECT max(r.at - f.at) / 1000000.0
FROM {{audit_faults}} f
JOIN (SELECT json_extract(e.value, '$.worker') AS worker,
             CAST(round((julianday(json_extract(e.value, '$.at')) - 2440587.5) * 86400000) AS INTEGER) * 1000 AS at
      FROM {{jobs}} j, json_each(j.errors) e
      WHERE json_extract(e.value, '$.class') = 'LeaseExpired') r
  ON r.worker = f.worker AND r.at >= f.at
WHERE f.kind = 'killed'
