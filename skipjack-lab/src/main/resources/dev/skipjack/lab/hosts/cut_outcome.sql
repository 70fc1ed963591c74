-- hosts: what became of the executions the cut host held when its link went down.
--   rescued: the job moved on from that attempt (a later attempt claimed it), or its lease
--     expired (a LeaseExpired entry for that attempt names the cut worker);
--   stale_completions: rescued at that attempt, yet completed with that attempt as its last: a
--     completion from the cut host after the rescue that counted. Must be 0: the completion is
--     fenced by (id, attempt, state = 'running') (complete_jobs.sql), and a rescue leaves the row
--     'available', a re-claim gives it the next attempt;
--   completed_before_rescue: completed at that attempt without any rescue (the completion reached
--     the database before the cut);
--   recovery_max_s: the worst time from the cut to the claim that runs the job elsewhere
--     (attempted_at of its later attempt), on the database's clock;
--   not_elsewhere: rescued but not yet claimed again.
-- Index: primary key (one lookup per held job).
-- Parameters: the cut worker, held job ids, their attempts, the cut time.
WITH held AS (
    SELECT h.id, h.attempt, j.state, j.attempt AS now_attempt, j.claimed_by, j.attempted_at,
           EXISTS (SELECT 1 FROM jsonb_array_elements(j.errors) e
                   WHERE e ->> 'class' = 'LeaseExpired'
                     AND (e ->> 'attempt')::int = h.attempt
                     AND e ->> 'worker' = ?) AS lease_expired
    FROM unnest(?::bigint[], ?::int[]) AS h(id, attempt)
    JOIN {{jobs}} j ON j.id = h.id
)
SELECT count(*) FILTER (WHERE now_attempt > attempt OR lease_expired),
       count(*) FILTER (WHERE lease_expired AND now_attempt = attempt AND state = 'completed'),
       count(*) FILTER (WHERE NOT lease_expired AND now_attempt = attempt AND state = 'completed'),
       max(extract(epoch FROM (attempted_at - ?::timestamptz))) FILTER (WHERE now_attempt > attempt),
       count(*) FILTER (WHERE lease_expired AND now_attempt = attempt AND state <> 'completed')
FROM held
