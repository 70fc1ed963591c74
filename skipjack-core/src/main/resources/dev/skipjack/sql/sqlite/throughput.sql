-- Jobs that finished per time bucket and state since a given time, for the dashboard's chart.
-- Buckets are integer arithmetic on the epoch microseconds.
-- Index: none; a scan, fine for an operator's page. Workers never run it.
-- Parameters: bucket width in seconds (twice), since (epoch microseconds).
SELECT (finished_at / 1000000 / ?) * ? * 1000000 AS bucket, state, count(*)
FROM {{jobs}}
WHERE finished_at >= ?
GROUP BY 1, 2
ORDER BY 1, 2
