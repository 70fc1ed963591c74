-- Audit figure: for every worker killed by the driver, seconds from the kill to the last rescue of
-- a job that worker held (the LeaseExpired entry the rescuer wrote names the worker; its 'at' is
-- UTC text, '2026-01-31T12:00:00.123456Z'). The maximum over kills is the run's worst recovery
-- time (the maximum over kill/rescue pairs is the same number); null when nothing needed rescuing.
-- Index: none; a scan run once after a test.
SELECT MAX(TIMESTAMPDIFF(MICROSECOND, f.at, STR_TO_DATE(e.at, '%Y-%m-%dT%H:%i:%s.%fZ'))) / 1000000
FROM {{audit_faults}} f
JOIN {{jobs}} j
JOIN JSON_TABLE(j.errors, '$[*]' COLUMNS (class  VARCHAR(255) PATH '$.class',
                                          worker VARCHAR(255) PATH '$.worker',
                                          at     VARCHAR(64)  PATH '$.at')) e
WHERE f.kind = 'killed'
  AND e.class = 'LeaseExpired'
  AND e.worker = f.worker
  AND STR_TO_DATE(e.at, '%Y-%m-%dT%H:%i:%s.%fZ') >= f.at
