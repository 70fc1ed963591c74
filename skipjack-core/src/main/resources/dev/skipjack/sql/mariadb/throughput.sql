-- Jobs that finished per time bucket and state since a given time, for the dashboard's chart.
-- Buckets are computed by arithmetic on the UTC DATETIME, never through the session's time zone.
-- Index: none; a scan, fine for an operator's page. Workers never run it.
-- Parameters: bucket width in seconds (twice), since (DATETIME in UTC).
SELECT CAST('1970-01-01 00:00:00' AS DATETIME(6))
           + INTERVAL (FLOOR(TIMESTAMPDIFF(SECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), finished_at) / ?) * ?) SECOND
           AS bucket,
       state, COUNT(*)
FROM {{jobs}}
WHERE finished_at >= ?
GROUP BY 1, 2
ORDER BY 1, 2
