-- Jobs not yet in a terminal state, to tell when a drain is over "in the database".
-- Index: none needed; the bench table holds one run's jobs.
SELECT count(*) FROM {{jobs}} WHERE state NOT IN ('completed', 'discarded', 'cancelled')
