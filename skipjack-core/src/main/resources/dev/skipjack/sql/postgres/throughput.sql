-- Jobs that finished per time bucket and state since a given time, for the dashboard's chart.
-- Index: none; a sequential scan, which is fine for an operator's page refreshed every few
-- seconds on tables of a few million rows. Workers never run it.
-- Parameters: bucket width in seconds (twice), since (timestamptz).
SELECT to_timestamp(floor(extract(epoch FROM finished_at) / ?) * ?) AS bucket, state, count(*)
FROM {{jobs}}
WHERE finished_at >= ?::timestamptz
GROUP BY 1, 2
ORDER BY 1, 2
