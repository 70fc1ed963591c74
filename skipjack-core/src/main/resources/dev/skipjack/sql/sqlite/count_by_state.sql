-- Job counts per queue and state, for progress lines and operators.
SELECT queue, state, count(*)
FROM {{jobs}}
GROUP BY queue, state
