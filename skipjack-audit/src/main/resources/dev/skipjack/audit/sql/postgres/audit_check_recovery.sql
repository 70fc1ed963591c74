-- Audit figure: for every worker killed by the driver, seconds from the kill to the last rescue of
-- a job that worker held (the LeaseExpired entry the rescuer wrote names the worker). The maximum
-- over kills is the run's worst recovery time; null when nothing needed rescuing.
-- Index: none; a scan run once after a test.
SELECT max(extract(epoch FROM (r.rescued_at - f.at)))
FROM {{audit_faults}} f
JOIN LATERAL (
    SELECT max((e ->> 'at')::timestamptz) AS rescued_at
    FROM {{jobs}} j, jsonb_array_elements(j.errors) e
    WHERE e ->> 'class' = 'LeaseExpired'
      AND e ->> 'worker' = f.worker
      AND (e ->> 'at')::timestamptz >= f.at
) r ON true
WHERE f.kind = 'killed'
